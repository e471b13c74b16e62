#include "core/thread_priority.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace engram {

void NameAndDeprioritizeThisThread(const std::string& name, int nice) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
  if (nice <= 0) return;
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno != 0) return;
  setpriority(PRIO_PROCESS, tid, now + nice);
}

}  // namespace engram
