/*
 * main.c: the WebAssembly program slublab-run.wasm (scripts/build-wasm):
 * `slublab run` alone, with the same arguments and output as the native
 * program's (`slublab-run.wasm run FILE [OPTIONS]`), run by a WASI host
 * with the scenario's directory preopened (docs/wasm.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
    int status;

    if (argc < 2 || strcmp(argv[1], cmd_run.name) != 0) {
        fprintf(stderr, "usage: slublab-run.wasm run FILE [OPTIONS]\n");
        return CLI_USAGE;
    }
    status = cmd_run.run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "slublab: error writing the output\n");
        return CLI_USAGE;
    }
    return status;
}
