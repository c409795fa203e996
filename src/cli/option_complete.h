/* The bash and zsh completions of apsp and apsp-mpi, made from the option table at build time
 * (option_complete.c, run by apsp-option-docs). */
#ifndef APSP_CLI_OPTION_COMPLETE_H
#define APSP_CLI_OPTION_COMPLETE_H

#include <stdio.h>

/* A bash completion function and its `complete` line: options, the words of a choice (formats,
 * methods, backends, types), files for a file's value and for INPUT and OUTPUT. Works with or
 * without '=' in COMP_WORDBREAKS. */
void complete_bash(FILE *out, unsigned command);
/* The same as a zsh #compdef file for _arguments. */
void complete_zsh(FILE *out, unsigned command);

#endif
