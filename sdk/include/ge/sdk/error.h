// ge/sdk/error.h — the exception types GE code throws.
//
// Every error carries a one-line message that names the file, node, key or plugin at fault.
// `gec` prints `gec: error: <message>` and exits non-zero; nothing else ever terminates.
#pragma once
#include <stdexcept>
#include <string>

namespace ge {

/// Base class of every GE error. what() is a complete, user-facing sentence.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

/// The input asks for something GE deliberately does not handle (a dtype, an attribute value,
/// a rank, an opset, training mode, control flow). The message names what is not handled.
/// The conformance runner counts such a rejection as "unsupported", not as a failure.
class UnsupportedError : public Error {
 public:
  explicit UnsupportedError(const std::string& msg) : Error(msg) {}
};

/// Shape inference needs the contents of an input that is not known at compile time (a Reshape
/// target fed as a graph input). The importer then falls back to shapes the model declares.
class UnknownValueError : public UnsupportedError {
 public:
  explicit UnknownValueError(const std::string& msg) : UnsupportedError(msg) {}
};

/// The model or graph is malformed (bad attribute value, inconsistent shapes, dangling input).
class InvalidGraphError : public Error {
 public:
  explicit InvalidGraphError(const std::string& msg) : Error(msg) {}
};

/// A manifest option has a value GE cannot use (an unknown scheduler name, streams = 0). The
/// pass manager does not undo the pass and carry on as it does for other failures: compilation
/// stops with the message, which names the key ("scheduler.streams") and what is allowed.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& msg) : Error(msg) {}
};

}  // namespace ge
