/* The kernel's floor under the fan-out (issue 43): the CPU of a bare send() of one
 * 353-byte message (the size benchmarks/fanout_write.py sends) to each of N loopback TCP
 * sockets, drained by a reader process with epoll, as the Python benchmark's reader does.
 *
 *   cc -O2 -o send_floor benchmarks/send_floor.c && ./send_floor N ROUNDS
 *
 * Prints "median_us best_us": this process's CPU time (user and system) per socket per
 * message, over each of the rounds. benchmarks/fanout_write.py --floor compiles and runs it beside
 * its own measurements. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* this process's CPU time, as Python's time.process_time() reads it */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void drain(struct sockaddr_in *addr, int n) {
  int ep = epoll_create1(0);
  for (int i = 0; i < n; i++) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || connect(s, (struct sockaddr *)addr, sizeof *addr) != 0) _exit(1);
    struct epoll_event e = {.events = EPOLLIN, .data.fd = s};
    epoll_ctl(ep, EPOLL_CTL_ADD, s, &e);
  }
  static char buf[65536];
  struct epoll_event ev[256];
  for (;;) {
    int k = epoll_wait(ep, ev, 256, 5000);
    if (k <= 0) _exit(0);
    for (int j = 0; j < k; j++)
      if (read(ev[j].data.fd, buf, sizeof buf) == 0) _exit(0);
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, rounds = argc > 2 ? atoi(argv[2]) : 30, one = 1;
  if (n < 1 || rounds < 1) return 2;
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
  socklen_t len = sizeof addr;
  if (bind(ls, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(ls, 4096) != 0
      || getsockname(ls, (struct sockaddr *)&addr, &len) != 0) return 1;
  pid_t reader = fork();
  if (reader == 0) drain(&addr, n);
  int *conn = malloc(n * sizeof(int));
  double *per = malloc(rounds * sizeof(double));
  for (int i = 0; i < n; i++) {
    conn[i] = accept(ls, 0, 0);
    setsockopt(conn[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  char msg[353];
  memset(msg, 'x', sizeof msg);
  usleep(200000);
  for (int r = 0; r < rounds; r++) {
    double t0 = cpu_s();
    for (int i = 0; i < n; i++) send(conn[i], msg, sizeof msg, MSG_DONTWAIT);
    per[r] = (cpu_s() - t0) * 1e6 / n;
    usleep(20000);
  }
  qsort(per, rounds, sizeof(double), by_value);
  printf("%.3f %.3f\n", per[rounds / 2], per[0]);
  for (int i = 0; i < n; i++) close(conn[i]);
  kill(reader, SIGKILL);
  waitpid(reader, 0, 0);
  return 0;
}
