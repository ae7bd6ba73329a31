#pragma once
// One shared_ptr that many threads read and any thread may replace: the current configuration
// generation, the current rule set. Readers get a reference that keeps what they read alive.

#include <memory>
#include <mutex>
#include <utility>

namespace mcpgate {

// Not std::atomic<std::shared_ptr>: libstdc++ 12's load() reads the pointer under its lock bit
// and then releases the lock with a relaxed store, so the read is not ordered before the next
// writer's swap. By the C++ memory model that is a data race (ThreadSanitizer reports it against
// every reload), and a weakly ordered CPU may pair the new pointer with the old count. A mutex
// held for a copy costs the same two atomic operations a reader paid there.
template <class T>
class SharedSlot {
 public:
  explicit SharedSlot(std::shared_ptr<T> first) : value_(std::move(first)) {}

  [[nodiscard]] std::shared_ptr<T> load() const {
    std::lock_guard lock(mutex_);
    return value_;
  }
  void store(std::shared_ptr<T> next) {
    {
      std::lock_guard lock(mutex_);
      value_.swap(next);
    }
    // `next` now holds the old value: its last reference, if this is it, drops out of the lock.
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<T> value_;
};

}  // namespace mcpgate
