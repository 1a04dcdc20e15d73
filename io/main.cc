// keel-server: runs like redis-server.
//
//   keel-server [/path/to/keel.conf] [--option value ...]
//
// Options use redis.conf names and syntax ("--port 7000", "--save ''"), and are applied after the
// config file, as redis-server applies them. "-" as the config file reads it from standard input.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/numbers.h"
#include "engine/server/config_file.h"
#include "engine/server/descriptors.h"
#include "engine/server/engine.h"
#include "engine/server/server.h"
#include "engine/server/version.h"
#include "io/real_env.h"

namespace {

// Reads a config file; on failure *content holds the reason (strerror), which the loader quotes.
bool ReadFile(std::string_view path, std::string* content) {
  std::ifstream file{std::string(path), std::ios::binary};
  if (!file) {
    *content = std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << file.rdbuf();
  *content = buffer.str();
  return true;
}

void PrintUsage() {
  std::fprintf(stderr,
               "Usage: ./keel-server [/path/to/keel.conf] [options] [-]\n"
               "       ./keel-server - (read config from stdin)\n"
               "       ./keel-server -v or --version\n"
               "       ./keel-server -h or --help\n\n"
               "Examples:\n"
               "       ./keel-server (run the server with default config)\n"
               "       ./keel-server /etc/keel/6379.conf\n"
               "       ./keel-server --port 7777\n"
               "       ./keel-server /etc/mykeel.conf --loglevel verbose -\n"
               "       ./keel-server /etc/mykeel.conf --loglevel verbose\n");
}

// redis-server's getAbsolutePath: the working directory joined with `path`, each leading "../"
// of `path` removing the last component of the directory ("../x" from /a/b is /a/x).
std::string AbsolutePath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  std::string directory(cwd);
  if (directory.back() != '/') directory += '/';
  std::string_view relative(path);
  while (relative.substr(0, 3) == "../") {
    relative.remove_prefix(3);
    if (directory.size() > 1) directory.erase(directory.rfind('/', directory.size() - 2) + 1);
  }
  return directory + std::string(relative);
}

// Detaches from the terminal as redis-server's daemonize does.
void Daemonize() {
  if (fork() != 0) std::exit(0);
  setsid();
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
    if (null_fd > STDERR_FILENO) close(null_fd);
  }
}

// Redis's adjustOpenFilesLimit, at start (engine/server/descriptors.h): maxclients is lowered to
// the clients the descriptor limit allows, so that the server refuses extra clients with "max
// number of clients reached" instead of running out of descriptors. Returns false when not even
// the server's own descriptors fit (Redis exits then).
bool AdjustOpenFilesLimit(keel::Engine& engine) {
  const auto maxclients = static_cast<uint64_t>(engine.settings().maxclients);
  const keel::MaxclientsFit fit = keel::FitMaxclientsToDescriptors(engine, maxclients);
  if (!fit.possible) return false;
  if (fit.maxclients != maxclients) {
    keel::Config config = engine.config();
    const std::string text = keel::Int64ToString(static_cast<int64_t>(fit.maxclients));
    const std::string_view words[] = {text};
    std::string ignored;
    (void)config.Set(*keel::Config::Find("maxclients"), words, &ignored);
    engine.ReplaceConfig(std::move(config));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace keel;
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "-v" || args[0] == "--version")) {
    std::printf("Keel server v=%.*s (Redis %.*s compatible) bits=64\n",
                static_cast<int>(kKeelVersion.size()), kKeelVersion.data(),
                static_cast<int>(kRedisCompatibleVersion.size()), kRedisCompatibleVersion.data());
    return 0;
  }
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    PrintUsage();
    return 1;  // as redis-server
  }

  StartupInfo startup;
  for (int i = 0; i < argc; i++) startup.command_line.emplace_back(argv[i]);
  std::string text;
  size_t first_option = 0;
  if (!args.empty() && args[0].substr(0, 1) != "-") {
    startup.config_file = AbsolutePath(std::string(args[0]));
    if (!ReadFile(args[0], &text)) {
      // Named by its absolute path, as redis-server does.
      std::fprintf(stderr, "Fatal error, can't open config file '%s': %s\n",
                   startup.config_file.c_str(), std::strerror(errno));
      return 1;
    }
    first_option = 1;
  }
  // "-" as the first or last argument: the configuration continues on standard input.
  std::vector<std::string_view> options(args.begin() + first_option, args.end());
  if (!options.empty() && (options.front() == "-" || options.back() == "-")) {
    if (options.front() == "-") {
      options.erase(options.begin());
    } else {
      options.pop_back();
    }
    std::ostringstream input;
    input << std::cin.rdbuf();
    text += "\n" + input.str();
  }
  text += "\n" + CommandLineToConfigText(options);

  Config config;
  ConfigLoadError error;
  // As redis-server, "dir" takes effect while the file loads: later relative paths use it.
  auto enter_dir = [](std::string_view path) -> std::string {
    if (chdir(std::string(path).c_str()) != 0) return std::strerror(errno);
    return "";
  };
  if (!LoadConfigText(text, &config, ReadFile, &error, 0, enter_dir)) {
    std::fputs(error.Report().c_str(), stderr);
    return 1;
  }
  // CONFIG GET dir reports the working directory, as in Redis; the engine cannot ask the OS, so
  // the absolute path is filled in here. Likewise the PID file path a daemon uses by default.
  char cwd[4096];
  if (config.values().dir.empty() && getcwd(cwd, sizeof(cwd)) != nullptr) {
    const std::string_view words[] = {cwd};
    std::string ignored;
    if (!config.Set(*Config::Find("dir"), words, &ignored)) {
      std::fprintf(stderr, "Can't use the working directory '%s': %s\n", cwd, ignored.c_str());
      return 1;
    }
  }
  if (config.values().daemonize && config.values().pidfile.empty()) {
    const std::string_view words[] = {"/var/run/keel.pid"};
    std::string ignored;
    (void)config.Set(*Config::Find("pidfile"), words, &ignored);
  }
  const ConfigValues& settings = config.values();
  if (settings.daemonize) Daemonize();

  io::RealEnvOptions env_options;
  env_options.log_path = settings.logfile;
  env_options.io_backend =
      settings.io_backend == 1 ? io::IoBackend::kIoUring : io::IoBackend::kEpoll;
  Result<std::unique_ptr<Env>> env = io::NewRealEnv(env_options);
  // io_uring is the default where the kernel allows it: a kernel without it, a seccomp policy
  // that refuses io_uring_setup (Docker's default) or kernel.io_uring_disabled means epoll.
  std::string backend_fallback;
  if (!env.ok() && env_options.io_backend == io::IoBackend::kIoUring) {
    backend_fallback = env.status().ToString();
    env_options.io_backend = io::IoBackend::kEpoll;
    env = io::NewRealEnv(env_options);
  }
  if (!env.ok()) {
    std::fprintf(stderr, "Failed to start: %s\n", env.status().ToString().c_str());
    return 1;
  }
  const bool has_config_file = !startup.config_file.empty();
  Engine engine(**env, std::move(config), startup);
  const ProcessInfo process = (*env)->Process();
  engine.Log(LogLevel::kWarning, "oO0OoO0OoO0Oo Keel is starting oO0OoO0OoO0Oo");
  engine.Log(LogLevel::kWarning, "Keel version=" + std::string(kKeelVersion) + " (Redis " +
                                     std::string(kRedisCompatibleVersion) +
                                     " compatible), bits=64, pid=" + Int64ToString(process.pid) +
                                     ", just started");
  if (has_config_file) {
    engine.Log(LogLevel::kWarning, "Configuration loaded");
  } else {
    engine.Log(LogLevel::kWarning,
               "Warning: no config file specified, using the default config. In order to specify "
               "a config file use " +
                   std::string(argv[0]) + " /path/to/keel.conf");
  }

  if (!backend_fallback.empty()) {
    engine.Log(LogLevel::kWarning,
               "io-backend io_uring is not available here (" + backend_fallback + "): using epoll");
  }
  engine.Log(LogLevel::kNotice, "Network backend: " + process.multiplexing_api);
  if (!AdjustOpenFilesLimit(engine)) return 1;
  Server server(engine);
  if (!server.Start().ok()) return 1;
  // Only once listening, as redis-server: a server that fails to start leaves no PID file.
  const std::string pidfile = engine.settings().pidfile;
  if (!pidfile.empty()) {
    if (FILE* file = std::fopen(pidfile.c_str(), "w")) {
      std::fprintf(file, "%lld\n", static_cast<long long>(process.pid));
      std::fclose(file);
    } else {
      engine.Log(LogLevel::kWarning, "Failed to write PID file: " + std::string(strerror(errno)));
    }
  }

  engine.Log(LogLevel::kNotice,
             "Running mode=standalone, port=" + Int64ToString(engine.settings().port) + ".");
  engine.Log(LogLevel::kNotice, "Server initialized");
  engine.Log(LogLevel::kNotice, "Ready to accept connections");
  server.Run();
  if (!pidfile.empty()) unlink(pidfile.c_str());
  return 0;
}
