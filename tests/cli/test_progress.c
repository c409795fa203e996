/* The progress display's time left (src/cli/report.c, progress_line), driven with made-up clock
 * readings: the first call's time holds the set-up (reading, kernel builds), so no estimate may
 * come from it; the first estimate follows a measured stretch of rounds and is that stretch's
 * rate times the rounds left. And the rows of chosen sources are counted as sources. */
#include "check.h"
#include "report.h"

#include <string.h>

/* A solve of 100 rounds of 0.1 s each, after `setup` seconds before the first round ended. */
static void check_rounds(int lines) {
    progress p = {.start = 1000.0, .lines = lines};
    char line[160];
    double setup = 10.0, round = 0.1;
    int shown = progress_line(&p, p.start + setup + round, 1, 100, line, sizeof line);
    CHECK(shown, "the first round is shown");
    CHECK(strstr(line, "round 1/100") && strstr(line, "estimating") && !strstr(line, "left,") &&
              !strstr(line, "about"),
          "no estimate before a measured round: %s", line);
    size_t later = lines ? 60 : 10; /* past the display's period: 5 s for lines, 0.5 s else */
    double now = p.start + setup + round * (double)later;
    CHECK(progress_line(&p, now, later, 100, line, sizeof line), "round %zu is shown", later);
    char want[64];
    snprintf(want, sizeof want, "about %.1f s left", round * (double)(100 - later));
    CHECK(strstr(line, want) != NULL, "the estimate is the rounds' own rate: %s (want %s)", line,
          want);
    CHECK(!progress_line(&p, now + 0.01, later + 1, 100, line, sizeof line),
          "not shown again within the period");
    CHECK(progress_line(&p, now + 100.0, 100, 100, line, sizeof line) && !strstr(line, "about"),
          "the last round is shown, with nothing left: %s", line);
}

static void check_sources(void) {
    progress p = {.start = 0.0, .lines = 1, .sources = 12000};
    char line[160];
    progress_line(&p, 100.0, 1398, 12000, line, sizeof line);
    CHECK(strstr(line, "source 1398/12000") != NULL, "sources counted as sources: %s", line);
    progress q = {.start = 0.0, .lines = 1, .sources = 12000};
    progress_line(&q, 100.0, 3, 47, line, sizeof line); /* auto picked Floyd-Warshall: its rounds */
    CHECK(strstr(line, "round 3/47") != NULL, "Floyd-Warshall's rounds as rounds: %s", line);
}

int main(void) {
    check_rounds(0);
    check_rounds(1);
    check_sources();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
