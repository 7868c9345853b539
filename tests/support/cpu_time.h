#pragma once
// CPU time spent by the calling thread since construction. Tests that bound the work of a
// computation (linear, not quadratic) use it instead of the wall clock: other processes
// competing for the cores (a loaded CI machine) do not add to it.
#include <sys/resource.h>
#include <time.h>

namespace kev::test_support {

class ThreadCpuTimer {
 public:
  ThreadCpuTimer() : start_(now()) {}
  double seconds() const { return now() - start_; }

 private:
  static double now() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }
  double start_;
};

// CPU time (user and system) of the child processes waited for since construction: the
// same bound for work done by a program a test runs.
class ChildrenCpuTimer {
 public:
  ChildrenCpuTimer() : start_(now()) {}
  double seconds() const { return now() - start_; }

 private:
  static double now() {
    rusage r{};
    getrusage(RUSAGE_CHILDREN, &r);
    return static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
  }
  double start_;
};

}  // namespace kev::test_support
