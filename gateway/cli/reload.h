#pragma once

// Hot reload for `serve`: on SIGHUP, and when the config file or a rule file
// changes on disk (inotify), the config is loaded and its rules compiled on a
// thread of their own, off the request path; then the new generation is
// swapped in whole. A config that does not load, rules that do not compile,
// or a config that would leave a listener beyond loopback without auth, are
// logged with their error and the running generation stays.

#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gateway/guard/generation.h"
#include "gateway/session/sessions.h"

namespace mcpgate::gateway {

class Reloader {
 public:
  // `listen_host` is the host the gateway is bound to (the config's or
  // --listen's): a new config must keep that listener closed as startup did.
  Reloader(boost::asio::io_context& io, std::string config_path, std::string listen_host,
           std::shared_ptr<CurrentGeneration> current, SessionTable& sessions,
           config::LoadOptions load_options = {});
  ~Reloader();  // stops the watch and waits for a reload in progress

  void start();
  // Asks for a reload; several asks within the settle time make one reload.
  void request(const std::string& why);
  [[nodiscard]] bool pending() const;  // a reload is asked for or running

 private:
  struct Watch;
  void readEvents();
  void waitForHangup();
  void worker(const std::stop_token& stop);
  void reload(const std::string& why);

  boost::asio::io_context& io_;
  const std::string config_path_;
  const std::string listen_host_;
  const config::LoadOptions load_options_;
  std::shared_ptr<CurrentGeneration> current_;
  SessionTable& sessions_;
  std::unique_ptr<Watch> watch_;

  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::string asked_;  // why, when a reload is asked for and not yet started
  bool running_ = false;
  std::jthread thread_;
};

}  // namespace mcpgate::gateway
