// `kernelevo init --template NAME [DEST] [--dispatch DIM] [--force]`: copies a marked kernel
// template into a project, ready for kernelevo_optimize(); with `--dispatch DIM` the copy's
// spec gets `dispatch: {by: [DIM], buckets: per_problem}` (a winner per listed size of DIM),
// the template itself unchanged. `kernelevo init --list` lists the templates.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/template_dir.h"
#include "io/atomic_file.h"
#include "io/file_read.h"
#include "io/spec_dispatch_edit.h"

namespace kev::cli {
namespace {

namespace fs = std::filesystem;

struct InitArgs {
  std::string name;
  std::string dest;
  std::string dispatch;  // a problem dimension: the copy dispatches by it
  bool list = false;
  bool force = false;
};

int print_list(const std::vector<TemplateInfo>& templates, const fs::path& dir) {
  std::cerr << "kernelevo: templates in " << dir.string() << '\n';
  std::size_t width = 0;
  for (const auto& t : templates) width = std::max(width, t.name.size());
  for (const auto& t : templates) {
    std::string line = t.name + std::string(width - t.name.size() + 2, ' ') + t.description;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << '\n';
  }
  return 0;
}

// DEST: absent = ./NAME.cu; an existing directory or a path ending in '/' = inside it;
// anything else is the file to write.
fs::path target_path(const InitArgs& args) {
  const std::string file = args.name + ".cu";
  if (args.dest.empty()) return file;
  std::error_code ec;
  if (args.dest.back() == '/' || fs::is_directory(args.dest, ec)) return fs::path(args.dest) / file;
  return args.dest;
}

int copy_template(const InitArgs& args, const std::vector<TemplateInfo>& templates) {
  const auto found = std::find_if(templates.begin(), templates.end(),
                                  [&](const TemplateInfo& t) { return t.name == args.name; });
  if (found == templates.end()) {
    std::string names;
    for (const auto& t : templates) names += (names.empty() ? "" : ", ") + t.name;
    return report(make_error("unknown template '" + args.name +
                             "'; available: " + (names.empty() ? "(none)" : names)));
  }
  const fs::path target = target_path(args);
  std::error_code ec;
  const auto status = fs::symlink_status(target, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status))
      return report(make_error(target.string() + " is a directory", {}, ExitCode::failure));
    if (!args.force)
      return report(make_error(target.string() + " already exists; pass --force to overwrite it",
                               {}, ExitCode::failure));
  }
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      return report(
          make_error("cannot create " + target.parent_path().string() + ": " + ec.message(), {},
                     ExitCode::failure));
  }
  if (args.dispatch.empty()) {
    fs::copy_file(found->path, target, fs::copy_options::overwrite_existing, ec);
    if (ec)
      return report(make_error("cannot write " + target.string() + ": " + ec.message(), {},
                               ExitCode::failure));
    std::cout << "created " << target.string() << " (template " << args.name << ")\n";
    return 0;
  }
  const auto text = read_regular_file(found->path, kMaxSourceBytes);
  if (!text) return report(text.error());
  const auto edited = add_dispatch(*text, found->path.string(), args.dispatch);
  if (!edited) return report(edited.error());
  if (auto written = write_file_atomically(target, *edited); !written)
    return report(written.error());
  std::cout << "created " << target.string() << " (template " << args.name
            << ", one winner per problem's " << args.dispatch
            << ": call it through kernelevo::dispatch, docs/build-integration.md)\n";
  return 0;
}

int run_init(const InitArgs& args) {
  if (!args.list && args.name.empty())
    return report(make_error("init needs --template NAME (see --list for the names)"));
  const auto dir = find_template_dir();
  if (!dir) return report(dir.error());
  const auto templates = list_templates(*dir);
  if (args.list) return print_list(templates, *dir);
  return copy_template(args, templates);
}

const CommandRegistrar registrar{
    "init", [](CLI::App& app, int& exit_code) {
      static InitArgs args;
      auto* sub = app.add_subcommand("init", "Copy a marked kernel template into a project");
      auto* list = sub->add_flag("--list", args.list, "List the templates with a description");
      sub->add_option("--template", args.name, "Template to copy (softmax, rmsnorm, ...)")
          ->excludes(list);
      sub->add_option("dest", args.dest,
                      "File to write, or a directory to put NAME.cu in (default: ./NAME.cu)")
          ->excludes(list);
      sub->add_option("--dispatch", args.dispatch,
                      "Add `dispatch: {by: [DIM], buckets: per_problem}` to the copy's spec: "
                      "a winner per listed size of DIM")
          ->excludes(list);
      sub->add_flag("--force", args.force, "Overwrite an existing file");
      sub->callback([&exit_code] { exit_code = run_init(args); });
    }};

}  // namespace
}  // namespace kev::cli
