// Background threads yield the cores to the threads that serve requests: a thread that lowers
// its own CPU priority (a higher niceness) gets a smaller share of a contended core, and a
// thread at the usual priority that wakes preempts it sooner. Raising one's own niceness needs
// no privilege, so this works for any user.
#pragma once

#include <string>

namespace engram {

// The niceness background threads add (asynchronous jobs, the chat proxy's write-back).
inline constexpr int kBackgroundNice = 10;

// Names the calling thread (as top -H and perf show it; at most 15 bytes are kept) and raises
// its niceness by `nice` (0: unchanged). Linux applies a thread id's niceness to that thread
// alone. A failure leaves the thread as it was: correct, only less polite under load.
void NameAndDeprioritizeThisThread(const std::string& name, int nice);

}  // namespace engram
