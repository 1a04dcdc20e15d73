// Not compiled: input for the purity check's self-test.
#include <unistd.h>
#include <chrono>
long Now() { return std::chrono::steady_clock::now().time_since_epoch().count() + getpid(); }
