// A valid shared library that does not export ge_plugin_entry.
extern "C" __attribute__((visibility("default"))) int some_other_function() { return 42; }
