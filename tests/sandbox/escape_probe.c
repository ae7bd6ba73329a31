// Runs inside the sandbox: one attempted escape per argument, one line per
// attempt, "<action>: ok" or "<action>: <ERRNO NAME>[ detail]", so a test can
// assert the exact failure of each.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void report(const char* action, long rc, const char* detail) {
  if (rc >= 0) {
    printf("%s: ok%s%s\n", action, detail ? " " : "", detail ? detail : "");
  } else {
    printf("%s: %s%s%s\n", action, strerrorname_np(errno), detail ? " " : "", detail ? detail : "");
  }
  fflush(stdout);
}

static const char* arg(const char* action) {
  const char* colon = strchr(action, ':');
  return colon ? colon + 1 : "";
}

static void forkBomb(const char* action) {
  static pid_t kids[100000];
  int n = 0;
  int err = 0;
  while (n < 100000) {
    pid_t p = fork();
    if (p == 0) {
      pause();
      _exit(0);
    }
    if (p < 0) {
      err = errno;
      break;
    }
    kids[n++] = p;
  }
  for (int i = 0; i < n; ++i) kill(kids[i], SIGKILL);
  for (int i = 0; i < n; ++i) waitpid(kids[i], NULL, 0);
  char detail[64];
  snprintf(detail, sizeof detail, "after %d", n);
  errno = err;
  report(action, err ? -1 : 0, detail);
}

static void memoryBomb(const char* action) {
  long mib = atol(arg(action));
  for (long i = 0; i < mib; ++i) {
    char* p = malloc(1 << 20);
    if (!p) {
      report(action, -1, "malloc");
      return;
    }
    memset(p, 1, 1 << 20);  // touch every page: the cgroup counts resident memory
  }
  report(action, 0, NULL);
}

static long long nowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// "spin:N:MS": N processes spin for MS milliseconds of wall time; reports the
// CPU time they got (user + system, from the kernel's accounting) and the
// wall time, so a test can compare the ratio with a CPU cap.
static void spin(const char* action) {
  int n = atoi(arg(action));
  const char* second = strchr(arg(action), ':');
  long long ms = second ? atoll(second + 1) : 1000;
  long long start = nowMs();
  for (int i = 0; i < n; ++i) {
    if (fork() == 0) {
      volatile unsigned long x = 0;
      while (nowMs() - start < ms) ++x;
      _exit(0);
    }
  }
  while (wait(NULL) > 0) {
  }
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  long long cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
                  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
  char detail[96];
  snprintf(detail, sizeof detail, "cpu_ms=%lld wall_ms=%lld", cpu, nowMs() - start);
  report(action, 0, detail);
}

// "copyexec:PATH": copies this binary to PATH (mode 0755) and runs the copy,
// as a server would run something it downloaded.
static void copyExec(const char* action) {
  const char* path = arg(action);
  int in = open("/proc/self/exe", O_RDONLY);
  int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  if (in < 0 || out < 0) {
    report(action, -1, "copy");
    return;
  }
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0) {
    if (write(out, buf, (size_t)n) != n) break;
  }
  close(in);
  close(out);
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    report(action, -1, "pipe");
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    char* const argv[] = {(char*)path, "exit:0", NULL};
    execv(path, argv);
    int err = errno;
    (void)write(pipefd[1], &err, sizeof err);
    _exit(127);
  }
  close(pipefd[1]);
  int err = 0;
  ssize_t got = read(pipefd[0], &err, sizeof err);
  close(pipefd[0]);
  waitpid(pid, NULL, 0);
  unlink(path);
  errno = err;
  report(action, got == (ssize_t)sizeof err ? -1 : 0, NULL);
}

static void fill(const char* action) {
  signal(SIGXFSZ, SIG_IGN);  // see EFBIG instead of dying
  int fd = open(arg(action), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    report(action, -1, "open");
    return;
  }
  static char chunk[1 << 16];
  memset(chunk, 'x', sizeof chunk);
  long long total = 0;
  for (;;) {
    ssize_t n = write(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    total += n;
  }
  int err = errno;
  char detail[64];
  snprintf(detail, sizeof detail, "after %lld", total);
  close(fd);
  unlink(arg(action));
  errno = err;
  report(action, -1, detail);
}

static void fds(const char* action) {
  int n = 0;
  while (open("/dev/null", O_RDONLY) >= 0) ++n;
  char detail[64];
  snprintf(detail, sizeof detail, "after %d", n);
  report(action, -1, detail);
}

static void connectTo(const char* action) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) {
    report(action, -1, "socket");
    return;
  }
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)atoi(arg(action)));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  report(action, connect(s, (struct sockaddr*)&addr, sizeof addr), NULL);
  close(s);
}

static void connectUnix(const char* action) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, arg(action), sizeof addr.sun_path - 1);
  report(action, connect(s, (struct sockaddr*)&addr, sizeof addr), NULL);
  close(s);
}

static void readFile(const char* action) {
  int fd = open(arg(action), O_RDONLY);
  if (fd < 0) {
    report(action, -1, NULL);
    return;
  }
  char buf[256];
  report(action, read(fd, buf, sizeof buf), NULL);
  close(fd);
}

/* Prints a file on one line: NULs as spaces, newlines as '|' (what /proc shows of the host). */
static void catFile(const char* action) {
  int fd = open(arg(action), O_RDONLY);
  if (fd < 0) {
    report(action, -1, NULL);
    return;
  }
  static char buf[65536];
  ssize_t total = 0, n = 0;
  while (total < (ssize_t)sizeof buf - 1 &&
         (n = read(fd, buf + total, sizeof buf - 1 - (size_t)total)) > 0) {
    total += n;
  }
  close(fd);
  for (ssize_t i = 0; i < total; ++i) {
    if (buf[i] == 0) buf[i] = ' ';
    if (buf[i] == '\n') buf[i] = '|';
  }
  buf[total] = 0;
  report(action, 0, buf);
}

static void writeFile(const char* action) {
  int fd = open(arg(action), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    report(action, -1, NULL);
    return;
  }
  report(action, write(fd, "x", 1), NULL);
  close(fd);
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    errno = 0;
    if (!strncmp(a, "read:", 5)) {
      readFile(a);
    } else if (!strncmp(a, "cat:", 4)) {
      catFile(a);
    } else if (!strncmp(a, "write:", 6)) {
      writeFile(a);
    } else if (!strncmp(a, "kill:", 5)) {
      report(a, kill(atoi(arg(a)), SIGCONT), NULL);
    } else if (!strcmp(a, "ptrace")) {
      report(a, ptrace(PTRACE_ATTACH, 1, 0, 0), NULL);
    } else if (!strcmp(a, "mount")) {
      report(a, mount("none", "/tmp", "tmpfs", 0, NULL), NULL);
    } else if (!strcmp(a, "unshare")) {
      report(a, unshare(CLONE_NEWUSER), NULL);
    } else if (!strcmp(a, "clone-newnet")) {
      long r = syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
      if (r == 0) _exit(0);
      if (r > 0) waitpid((pid_t)r, NULL, 0);
      report(a, r, NULL);
    } else if (!strcmp(a, "clone3")) {
      report(a, syscall(SYS_clone3, NULL, 0), NULL);
    } else if (!strcmp(a, "keyctl")) {
      report(a, syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0), NULL);
    } else if (!strcmp(a, "io_uring_setup")) {
      struct io_uring_params params;
      memset(&params, 0, sizeof params);
      report(a, syscall(SYS_io_uring_setup, 1, &params), NULL);
    } else if (!strcmp(a, "tiocsti")) {
      char c = 'x';
      report(a, ioctl(0, TIOCSTI, &c), NULL);
    } else if (!strcmp(a, "tiocsti-high-bits")) {
      char c = 'x';
      report(a, syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, &c), NULL);
    } else if (!strcmp(a, "personality-norandom")) {
      report(a, syscall(SYS_personality, ADDR_NO_RANDOMIZE), NULL);
    } else if (!strcmp(a, "personality-query")) {
      report(a, syscall(SYS_personality, 0xffffffffUL), NULL);
    } else if (!strcmp(a, "socket-packet")) {
      report(a, socket(AF_PACKET, SOCK_RAW, 0), NULL);
    } else if (!strcmp(a, "socket-netlink")) {
      report(a, socket(AF_NETLINK, SOCK_RAW, 0), NULL);
    } else if (!strncmp(a, "connect:", 8)) {
      connectTo(a);
    } else if (!strncmp(a, "unix:", 5)) {
      connectUnix(a);
    } else if (!strcmp(a, "forkbomb")) {
      forkBomb(a);
    } else if (!strncmp(a, "stderr:", 7)) {
      fprintf(stderr, "%s\n", arg(a));
      fflush(stderr);
    } else if (!strncmp(a, "copyexec:", 9)) {
      copyExec(a);
    } else if (!strncmp(a, "spin:", 5)) {
      spin(a);
    } else if (!strncmp(a, "membomb:", 8)) {
      memoryBomb(a);
    } else if (!strncmp(a, "fill:", 5)) {
      fill(a);
    } else if (!strcmp(a, "fds")) {
      fds(a);
    } else if (!strcmp(a, "ids")) {
      char detail[64];
      snprintf(detail, sizeof detail, "uid=%d euid=%d gid=%d egid=%d", getuid(), geteuid(),
               getgid(), getegid());
      report(a, 0, detail);
    } else if (!strncmp(a, "env:", 4)) {
      const char* v = getenv(arg(a));
      printf("%s: %s\n", a, v ? v : "(unset)");
      fflush(stdout);
    } else if (!strncmp(a, "close:", 6)) {
      /* A server that closes stdin or stdout and stays alive: no report, the fd may be stdout. */
      close(atoi(arg(a)));
    } else if (!strncmp(a, "sleep:", 6)) {
      sleep((unsigned)atoi(arg(a)));
    } else if (!strncmp(a, "exit:", 5)) {
      return atoi(arg(a));
    } else {
      printf("%s: unknown action\n", a);
      return 2;
    }
  }
  return 0;
}
