// Runs inside a `network: host` sandbox: connects N times to one sockaddr
// while a second thread flips it, without pause, between an allowed address
// and a blocked one, so that a supervisor that checked the address and then
// let the kernel read it again would connect to the blocked one some of the
// time. Prints "connected A of N" (A: connects that succeeded).
//
//   host_race N ALLOWED_IP ALLOWED_PORT BLOCKED_IP BLOCKED_PORT [sendto|sendmsg|sendmmsg]
//
// With a send mode each attempt is a UDP datagram to the flipping address
// instead; sendmmsg sends two per call and counts a datagram only when the
// call reports its msg_len (which glibc's resolver checks).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in target;  // flipped in place by the second thread
static struct sockaddr_in allowed, blocked;
static atomic_int done;

static void* flip(void* unused) {
  (void)unused;
  // The barriers keep the compiler from dropping the first store as dead.
  while (!atomic_load(&done)) {
    memcpy((void*)&target, &blocked, sizeof target);
    __asm__ volatile("" ::: "memory");
    memcpy((void*)&target, &allowed, sizeof target);
    __asm__ volatile("" ::: "memory");
  }
  return NULL;
}

static struct sockaddr_in address(const char* ip, const char* port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)atoi(port));
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: host_race N ALLOWED_IP PORT BLOCKED_IP PORT [sendto]\n");
    return 2;
  }
  const int n = atoi(argv[1]);
  const char* mode = argc > 6 ? argv[6] : "connect";
  const int datagrams = strcmp(mode, "connect") != 0;
  allowed = address(argv[2], argv[3]);
  blocked = address(argv[4], argv[5]);
  target = allowed;
  pthread_t flipper;
  pthread_create(&flipper, NULL, flip, NULL);
  int connected = 0;
  for (int i = 0; i < n; ++i) {
    int s = socket(AF_INET, datagrams ? SOCK_DGRAM : SOCK_STREAM, 0);
    if (s < 0) break;
    struct iovec iov = {"x", 1};
    struct mmsghdr m[2];
    memset(m, 0, sizeof m);
    for (int k = 0; k < 2; ++k) {
      m[k].msg_hdr.msg_name = (void*)&target;
      m[k].msg_hdr.msg_namelen = sizeof target;
      m[k].msg_hdr.msg_iov = &iov;
      m[k].msg_hdr.msg_iovlen = 1;
    }
    int rc = -1;
    if (strcmp(mode, "sendto") == 0) {
      rc = (int)sendto(s, "x", 1, 0, (struct sockaddr*)&target, sizeof target);
    } else if (strcmp(mode, "sendmsg") == 0) {
      rc = (int)sendmsg(s, &m[0].msg_hdr, 0);
    } else if (strcmp(mode, "sendmmsg") == 0) {
      int sent = sendmmsg(s, m, 2, 0);
      for (int k = 0; k < sent; ++k) connected += m[k].msg_len == 1;
    } else {
      rc = connect(s, (struct sockaddr*)&target, sizeof target);
    }
    if (rc >= 0) ++connected;
    close(s);
  }
  atomic_store(&done, 1);
  pthread_join(flipper, NULL);
  printf("connected %d of %d\n", connected, n);
  return 0;
}
