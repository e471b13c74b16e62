# The Debian package: `cpack --config build/CPackConfig.cmake` (or `cmake --build build --target
# package`) writes engram_<version>_amd64.deb. It holds what `make install` installs, under /usr,
# and the system integration from packaging/debian/: the systemd units in /lib/systemd/system,
# the conffile /etc/default/engram, and the maintainer scripts that create the system user engram
# and its data directory /var/lib/engram. docs/deploy.md says how to install and run it.
#
# The system files are an install component of their own, excluded from `make install` /
# `cmake --install` (absolute paths under /etc and /lib have no place in a PREFIX install);
# the package takes both components as one.

set(ENGRAM_DEBIAN_DIR ${CMAKE_SOURCE_DIR}/packaging/debian)
install(FILES ${ENGRAM_DEBIAN_DIR}/engram.service ${ENGRAM_DEBIAN_DIR}/engram-maintain.service
              ${ENGRAM_DEBIAN_DIR}/engram-maintain.timer
        DESTINATION /lib/systemd/system COMPONENT system EXCLUDE_FROM_ALL)
install(FILES ${ENGRAM_DEBIAN_DIR}/default DESTINATION /etc/default RENAME engram
        COMPONENT system EXCLUDE_FROM_ALL)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME engram)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "Engram maintainers <maintainers@users.noreply.a-seed-213db4e2.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "long-term memory server for LLM applications")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Engram keeps what each user says, extracts the facts that matter (built-in
rules for Chinese and English, or any OpenAI-compatible LLM), keeps them
current as they change, and hands the model a small context found by hybrid
keyword and vector search. One binary on an embedded SQLite database: an HTTP
API with a web console, an OpenAI-compatible chat proxy, MCP and a CLI.

This package runs `engram serve` as the system user engram (engram.service)
on /var/lib/engram/engram.db, configured in /etc/default/engram.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # engram_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: the shared libraries' packages, found by dpkg-shlibdeps (package dpkg-dev) from
# the binary's DT_NEEDED; adduser for the postinst; poppler-utils for PDF documents (pdftotext).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser, poppler-utils")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${ENGRAM_DEBIAN_DIR}/conffiles ${ENGRAM_DEBIAN_DIR}/postinst ${ENGRAM_DEBIAN_DIR}/prerm
    ${ENGRAM_DEBIAN_DIR}/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)  # scripts 0755, conffiles 0644

# Both components in one package: Unspecified (the install() rules above this file) and system.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified system)
set(CPACK_STRIP_FILES ON)
include(CPack)
