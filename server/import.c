/* placeholder, filled in below */
#include "cli.h"
void cli_import_usage(FILE *f) { (void)f; }
int cli_import(int argc, char **argv) { (void)argc; (void)argv; return CLI_USAGE; }
