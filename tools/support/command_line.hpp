// SPDX-License-Identifier: Apache-2.0
// A tool's command line, read the same way by every tool: named options, each a flag or
// taking the next argument as its value, and positional arguments in order. What is wrong
// with it is a CliError (support/cli_values.hpp) with the same words in every tool; the
// tool prints it with its short usage and exits with status 2.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "support/cli_values.hpp"

namespace ipt::support {

class CommandLine {
 public:
  using Take = std::function<void(const std::string&)>;

  // An option that takes a value: `take` gets it, and may throw CliError to refuse it.
  CommandLine& value(const std::string& name, Take take);
  // An option without a value.
  CommandLine& flag(const std::string& name, std::function<void()> set);
  // Where arguments that are not options go, in order (a "--" argument that names no
  // option is refused as one); without it they are refused.
  CommandLine& positional(Take take);

  // Reads `args` in order. Throws CliError for an unknown option ("unknown option X"), a
  // missing value ("X needs a value"), an unexpected argument, or what a handler throws.
  void parse(const std::vector<std::string>& args) const;
  void parse(int argc, char** argv, int first) const {
    parse(std::vector<std::string>(argv + first, argv + argc));
  }

 private:
  struct Option {
    bool takes_value = false;
    Take take;
  };
  std::map<std::string, Option> options_;
  Take positional_;
};

// `text` when it is one of `choices`; otherwise CliError "WHAT takes a, b or c, not 'text'".
std::string one_of(const std::string& text, const std::string& what,
                   std::initializer_list<const char*> choices);

}  // namespace ipt::support
