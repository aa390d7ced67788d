// SPDX-License-Identifier: Apache-2.0
#include "support/command_line.hpp"

namespace ipt::support {

CommandLine& CommandLine::value(const std::string& name, Take take) {
  options_[name] = {true, std::move(take)};
  return *this;
}

CommandLine& CommandLine::flag(const std::string& name, std::function<void()> set) {
  options_[name] = {false, [set = std::move(set)](const std::string&) { set(); }};
  return *this;
}

CommandLine& CommandLine::positional(Take take) {
  positional_ = std::move(take);
  return *this;
}

void CommandLine::parse(const std::vector<std::string>& args) const {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto option = options_.find(arg);
    if (option == options_.end()) {
      if (arg.rfind("--", 0) == 0) throw CliError("unknown option " + arg);
      if (!positional_) throw CliError("unexpected argument '" + arg + "'");
      positional_(arg);
    } else if (!option->second.takes_value) {
      option->second.take("");
    } else {
      if (i + 1 >= args.size()) throw CliError(arg + " needs a value");
      option->second.take(args[++i]);
    }
  }
}

std::string one_of(const std::string& text, const std::string& what,
                   std::initializer_list<const char*> choices) {
  std::string list;
  std::size_t k = 0;
  for (const char* choice : choices) {
    if (text == choice) return text;
    list += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + std::string(choice);
    ++k;
  }
  throw CliError(what + " takes " + list + ", not '" + text + "'");
}

}  // namespace ipt::support
