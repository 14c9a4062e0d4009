// The scheduler plugin: sequential (memory-aware order), parallel (critical-path list scheduling
// onto streams), pipeline (balanced stages) and auto (the lowest estimate), plus the `schedule`
// pass that runs the one `[scheduler] name` picks.
#include "registration.h"

GE_PLUGIN("scheduler", "0.1.0", ge::sched::register_all)
