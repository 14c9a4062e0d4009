// The memory plugin: arena planners (naive, greedy_by_size, greedy_by_breadth, auto) and the
// plan_memory pass that gives every intermediate tensor an offset in one arena.
#include "registration.h"

GE_PLUGIN("memory", "0.1.0", ge::memory::register_all)
