#include "ge/sdk/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "ge/sdk/error.h"

namespace ge {

namespace {
spdlog::level::level_enum parse_level(const std::string& s) {
  static const std::pair<const char*, spdlog::level::level_enum> names[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"off", spdlog::level::off}};
  for (auto& [n, l] : names)
    if (s == n) return l;
  throw Error("unknown log level '" + s + "' (trace, debug, info, warn, error, off)");
}

spdlog::logger& logger() {
  static std::shared_ptr<spdlog::logger> l = [] {
    auto lg = spdlog::stderr_color_mt("ge");
    lg->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
    lg->set_level(spdlog::level::warn);
    if (const char* env = std::getenv("GE_LOG_LEVEL")) {
      try {
        lg->set_level(parse_level(env));
      } catch (const Error&) {
        lg->warn("GE_LOG_LEVEL='{}' is not a log level; using warn", env);
      }
    }
    return lg;
  }();
  return *l;
}
}  // namespace

void log(LogLevel level, const std::string& msg) {
  static const spdlog::level::level_enum map[] = {spdlog::level::trace, spdlog::level::debug, spdlog::level::info,
                                                  spdlog::level::warn,  spdlog::level::err,   spdlog::level::off};
  logger().log(map[static_cast<int>(level)], msg);
}

void set_log_level(const std::string& level) { logger().set_level(parse_level(level)); }

}  // namespace ge
