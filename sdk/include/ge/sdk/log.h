// ge/sdk/log.h — logging for plugins and core without exposing spdlog in public headers.
#pragma once
#include <string>

namespace ge {

enum class LogLevel { Trace, Debug, Info, Warn, Error, Off };

/// Writes one line to GE's logger (stderr; level from GE_LOG_LEVEL or --log-level).
void log(LogLevel level, const std::string& msg);
/// Sets the level; "trace", "debug", "info", "warn", "error", "off". Throws ge::Error otherwise.
void set_log_level(const std::string& level);

}  // namespace ge
