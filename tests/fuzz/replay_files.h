/* Replaying saved fuzzer inputs without libFuzzer: every regular file named, or found directly
 * inside a named directory (in name order), through a harness's own check. */
#ifndef APSP_TEST_REPLAY_FILES_H
#define APSP_TEST_REPLAY_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Checks one input; 0 when its properties hold, else nonzero after printing why. */
typedef int (*replay_check_fn)(const uint8_t *data, size_t size, const char *path);

/* Replays paths[0 .. count - 1]; returns the inputs replayed, or -1 after printing why one of
 * them could not be read. *failed counts the inputs whose check failed. */
long replay_files(const char *program, char **paths, int count, replay_check_fn check,
                  size_t *failed);

#endif
