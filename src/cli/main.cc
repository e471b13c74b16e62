#include "cli/cli_app.h"

int main(int argc, char** argv) { return engram::cli::RunCli(argc, argv); }
