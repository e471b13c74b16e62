#!/bin/sh
# Writes engram(1) from the engram binary's own help, so the page says exactly what
# `engram help`, `engram help flags` and `engram help all` say: the help text goes in verbatim
# (no-fill blocks), with only the roff escapes it needs. Run at build time by CMake (target
# engram_man); `make install` installs the result.
# Usage: scripts/make-manpage.sh ENGRAM_BINARY OUTPUT_FILE
set -eu
engram=$1
out=$2

# The help as a user with no ENGRAM_* variables would see it.
help() { env -i PATH="${PATH:-/usr/bin:/bin}" "$engram" help "$@"; }
# Backslashes, and lines starting with a period or an apostrophe, are roff syntax.
verbatim() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }
section() {
  printf '.SH %s\n.nf\n' "$1"
  shift
  help "$@" | verbatim
  printf '.fi\n'
}

version=$(env -i "$engram" --version | sed 's/^engram //')
{
  printf '%s\n' "'\\\" -*- coding: UTF-8 -*-"  # for man-db's preconv: the help has ≥ and ·
  printf '.TH ENGRAM 1 "" "engram %s" "User Commands"\n' "$version"
  printf '.SH NAME\nengram \\- long-term memory for LLM applications\n'
  printf '.SH SYNOPSIS\n.B engram\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]...\n'
  section DESCRIPTION
  section OPTIONS flags
  section COMMANDS all
  printf '.SH NOTES\nThis page is the output of engram help, engram help flags and engram help all.\n'
  printf 'Defaults that depend on the machine (--index-memory-mb) are those of the machine\n'
  printf 'that built it. The full documentation is README.md in the source repository.\n'
} >"$out.tmp"
mv "$out.tmp" "$out"
