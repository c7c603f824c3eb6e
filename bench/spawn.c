/* Interleaved process timing for bench/hook.sh: runs each command N times,
 * round by round, with the same file on standard input, and prints the
 * 10th percentile and the median of each in microseconds.
 * Usage: spawn N STDIN -- cmd1 args ;; cmd2 args ;; ...
 * Started through a link named `git`, it is the parent a hook expects
 * (vouch reads its parent's command line to find `git push`). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
extern char **environ;
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  if (argc < 5) return 2;
  int n = atoi(argv[1]), nc = 0;
  char **cmds[32];
  cmds[nc++] = &argv[4];
  for (int i = 4; i < argc && nc < 32; i++)
    if (!strcmp(argv[i], ";;")) { argv[i] = NULL; cmds[nc++] = &argv[i + 1]; }
  double *t = calloc((size_t)nc * n, sizeof(double));
  for (int r = 0; r < n; r++)
    for (int c = 0; c < nc; c++) {
      posix_spawn_file_actions_t fa;
      posix_spawn_file_actions_init(&fa);
      posix_spawn_file_actions_addopen(&fa, 0, argv[2], O_RDONLY, 0);
      posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
      posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
      pid_t p;
      int st;
      double t0 = now();
      if (posix_spawn(&p, cmds[c][0], &fa, NULL, cmds[c], environ)) { perror("spawn"); return 1; }
      waitpid(p, &st, 0);
      t[c * n + r] = now() - t0;
      posix_spawn_file_actions_destroy(&fa);
    }
  for (int c = 0; c < nc; c++) {
    qsort(&t[c * n], n, sizeof(double), cmp);
    printf("%.1f %.1f\n", t[c * n + n / 10], t[c * n + n / 2]);
  }
  return 0;
}
