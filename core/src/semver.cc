#include "ge/core/semver.h"

#include <cctype>
#include <sstream>

#include "ge/sdk/error.h"

namespace ge::core {

namespace {
std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}
}  // namespace

Version parse_version(const std::string& s, const std::string& what) {
  Version v;
  int* parts[] = {&v.major, &v.minor, &v.patch};
  std::string core = trim(s);
  core = core.substr(0, core.find_first_of("-+"));
  std::istringstream is(core);
  std::string piece;
  int i = 0;
  while (std::getline(is, piece, '.')) {
    if (i >= 3 || piece.empty() || piece.find_first_not_of("0123456789") != std::string::npos)
      throw Error(what + ": '" + s + "' is not a version (MAJOR.MINOR.PATCH)");
    if (piece.size() > 9) throw Error(what + ": '" + s + "' has a version number above 999999999");
    *parts[i++] = std::stoi(piece);
  }
  if (i == 0) throw Error(what + ": '" + s + "' is not a version (MAJOR.MINOR.PATCH)");
  return v;
}

bool version_satisfies(const Version& v, const std::string& requirement, const std::string& what) {
  std::istringstream is(requirement);
  std::string clause;
  while (std::getline(is, clause, ',')) {
    clause = trim(clause);
    if (clause.empty() || clause == "*") continue;
    size_t k = 0;
    while (k < clause.size() && std::string("<>=!^~").find(clause[k]) != std::string::npos) ++k;
    std::string op = clause.substr(0, k);
    Version r = parse_version(clause.substr(k), what);
    bool ok;
    if (op.empty() || op == "=" || op == "==") ok = v == r;
    else if (op == "!=") ok = v != r;
    else if (op == ">=") ok = v >= r;
    else if (op == "<=") ok = v <= r;
    else if (op == ">") ok = v > r;
    else if (op == "<") ok = v < r;
    else if (op == "^") ok = v >= r && (r.major > 0 ? v.major == r.major : v.minor == r.minor);  // cargo caret
    else if (op == "~") ok = v >= r && v.major == r.major && v.minor == r.minor;
    else throw Error(what + ": unknown operator '" + op + "' in '" + requirement + "'");
    if (!ok) return false;
  }
  return true;
}

}  // namespace ge::core
