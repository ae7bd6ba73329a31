#pragma once

// A whole file's bytes in one string: sized from fstat and read straight into
// it (no stream buffer, no doubling and copying). The rule cache's Hyperscan
// databases are megabytes, read at every start of `mcpgate scan` and `serve`.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgate {

// nullopt when the file cannot be opened or read.
[[nodiscard]] std::optional<std::string> readWholeFile(const std::filesystem::path& path);

// A regular file mapped read-only, for bytes that are only read once and
// thrown away (a cached Hyperscan database, which deserialization copies):
// no copy into a string, and the pages come in with the map (MAP_POPULATE),
// not one fault at a time.
class MappedFile {
 public:
  // nullopt when the file cannot be opened, is not a regular file, or is empty.
  [[nodiscard]] static std::optional<MappedFile> open(const std::filesystem::path& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  [[nodiscard]] std::string_view bytes() const {
    return {static_cast<const char*>(data_), size_};
  }

 private:
  MappedFile(void* data, std::size_t size) : data_(data), size_(size) {}
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace mcpgate
