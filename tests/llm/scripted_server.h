#pragma once
// Starts tests/llm/scripted_server.py (real HTTP on 127.0.0.1, ephemeral port) with a
// script of answers, and reads back what it received.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace kev::test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ScriptedServer {
 public:
  // `steps`: the JSON script (see scripted_server.py). Check ok() before use.
  ScriptedServer(const nlohmann::json& steps, const std::filesystem::path& dir) : dir_(dir) {
    std::filesystem::create_directories(dir_ / "requests");
    { std::ofstream(dir_ / "script.json") << steps.dump(); }
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      const std::string script =
          std::string(KERNELEVO_SOURCE_DIR) + "/tests/llm/scripted_server.py";
      const std::string steps_file = (dir_ / "script.json").string();
      const std::string record = (dir_ / "requests").string();
      execlp("python3", "python3", script.c_str(), steps_file.c_str(), record.c_str(),
             static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[64] = {};
    if (f && std::fgets(line, sizeof line, f) && std::sscanf(line, "PORT %d", &port_) == 1) {
      // keep the pipe open until the end so the server never gets SIGPIPE
      pipe_ = f;
    } else if (f) {
      std::fclose(f);
    }
  }
  ~ScriptedServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    if (pipe_) std::fclose(pipe_);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  [[nodiscard]] bool ok() const { return port_ > 0; }
  [[nodiscard]] std::string base_url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
  }
  // Request bodies in arrival order.
  [[nodiscard]] std::vector<std::string> requests() const {
    std::vector<std::string> out;
    for (int i = 0;; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "request-%03d.json", i);
      const auto p = dir_ / "requests" / name;
      if (!std::filesystem::exists(p)) break;
      out.push_back(read_text(p));
    }
    return out;
  }
  [[nodiscard]] std::string headers(int index) const {
    char name[40];
    std::snprintf(name, sizeof name, "request-%03d.headers", index);
    return read_text(dir_ / "requests" / name);
  }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  FILE* pipe_ = nullptr;
};

// An ephemeral port that nothing listens on (bound, then released).
int unused_port();

}  // namespace kev::test
