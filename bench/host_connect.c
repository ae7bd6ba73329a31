// Connect latency on loopback, for bench/host_connect.sh: N connects to a
// listener this process runs itself (accepted and closed by a second thread),
// blocking or non-blocking (EINPROGRESS, then poll), each followed by close.
// Prints "<mode> <microseconds per connect>".
//
//   host_connect N blocking|nonblocking
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int listener;

static void* drain(void* unused) {
  (void)unused;
  for (;;) {
    int c = accept(listener, NULL, NULL);
    if (c < 0) return NULL;
    close(c);
  }
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int n = atoi(argv[1]);
  const int nonblocking = strcmp(argv[2], "nonblocking") == 0;
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  listener = socket(AF_INET, SOCK_STREAM, 0);
  socklen_t len = sizeof a;
  if (bind(listener, (struct sockaddr*)&a, sizeof a) != 0 || listen(listener, 4096) != 0 ||
      getsockname(listener, (struct sockaddr*)&a, &len) != 0) {
    perror("listen");
    return 1;
  }
  pthread_t t;
  pthread_create(&t, NULL, drain, NULL);
  const double start = now_us();
  for (int i = 0; i < n; ++i) {
    int s = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    int rc = connect(s, (struct sockaddr*)&a, sizeof a);
    if (rc != 0 && nonblocking && errno == EINPROGRESS) {
      struct pollfd p = {s, POLLOUT, 0};
      poll(&p, 1, 5000);
      int err = 0;
      socklen_t l = sizeof err;
      getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l);
      rc = err == 0 ? 0 : -1;
    }
    if (rc != 0) {
      perror("connect");
      return 1;
    }
    close(s);
  }
  printf("%s %.2f\n", argv[2], (now_us() - start) / n);
  return 0;
}
