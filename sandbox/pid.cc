#include "sandbox/pid.h"

#include <unistd.h>

#include "sandbox/lifecycle.h"

namespace mcpgate::sandbox {

void runAsInit(pid_t server) {
  int status = superviseChild(server, /*reap_all=*/true);
  // _exit: no atexit handlers or sanitizer leak checks in the namespace's init.
  ::_exit(status < 0 ? 125 : exitCodeOf(status));
}

}  // namespace mcpgate::sandbox
