// placeholder: written with issue 3
#include <benchmark/benchmark.h>
BENCHMARK_MAIN();
