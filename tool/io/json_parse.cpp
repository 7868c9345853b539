#include "io/json_parse.h"

#include <cctype>
#include <iterator>
#include <optional>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kev::io {
namespace {

constexpr std::size_t kMaxExcerpt = 40;

std::string printable(std::string_view text) {
  std::string s;
  for (char c : text) s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s;
}

// The text for nlohmann's lexer, telling how far the lexer has read: when the handler hears
// of a key, the key's closing quote is the last character read.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* p, const char** read_up_to) : p_(p), read_up_to_(read_up_to) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    ++p_;
    if (read_up_to_ != nullptr) *read_up_to_ = p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator copy = *this;
    ++*this;
    return copy;
  }
  bool operator==(const TrackingIterator& other) const { return p_ == other.p_; }

 private:
  const char* p_ = nullptr;
  const char** read_up_to_ = nullptr;
};

struct SyntaxError {
  std::size_t position = 0;  // characters read, the offending one included
  std::string last_token;
  std::string what;
};

struct StructureError {
  std::size_t offset = 0;
  std::string message;
};

// Builds the document like nlohmann's own SAX-to-DOM parser, with a key set per open object.
template <class Json>
class Builder {
 public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;

  Builder(Json& root, std::string_view text, const char* const* read_up_to)
      : root_(root), text_(text), read_up_to_(read_up_to) {}

  bool null() { return place(Json(nullptr)) != nullptr; }
  bool boolean(bool v) { return place(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) { return place(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) { return place(Json(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t& /*text*/) {
    return place(Json(v)) != nullptr;
  }
  bool string(string_t& v) { return place(Json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) { return place(Json(std::move(v))) != nullptr; }
  bool start_object(std::size_t /*size*/) { return open(Json::object()); }
  bool start_array(std::size_t /*size*/) { return open(Json::array()); }
  bool end_object() {
    open_.pop_back();
    return true;
  }
  bool end_array() {
    open_.pop_back();
    return true;
  }
  bool key(string_t& k) {
    Open& top = open_.back();
    if (!top.keys.insert(k).second) {
      structure_ = StructureError{key_start(), "duplicate key " + excerpt(k) + path_text()};
      return false;
    }
    top.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& ex) {
    syntax_ = SyntaxError{position, last_token, ex.what()};
    return false;
  }

  std::optional<SyntaxError> syntax_;
  std::optional<StructureError> structure_;

 private:
  struct Open {
    Json* value = nullptr;
    std::unordered_set<string_t> keys;  // an object's keys so far
    string_t key;                       // the key of the member being read (kept for paths)
    std::size_t elements = 0;           // an array's elements so far
  };

  Json* place(Json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Open& top = open_.back();
    if (top.value->is_array()) {
      auto& array = top.value->template get_ref<typename Json::array_t&>();
      array.push_back(std::move(v));
      ++top.elements;
      return &array.back();
    }
    auto& object = top.value->template get_ref<typename Json::object_t&>();
    if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
      // The key is new (key() checked): append without ordered_map's linear search.
      auto& members = static_cast<typename Json::object_t::Container&>(object);
      members.emplace_back(top.key, std::move(v));
      return &members.back().second;
    } else {
      return &object.emplace(top.key, std::move(v)).first->second;
    }
  }

  bool open(Json&& container) {
    if (open_.size() >= kMaxJsonDepth) {
      structure_ =
          StructureError{read_offset() == 0 ? 0 : read_offset() - 1,
                         "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
      return false;
    }
    Json* placed = place(std::move(container));
    open_.push_back(Open{placed, {}, {}, 0});
    return true;
  }

  [[nodiscard]] std::size_t read_offset() const {
    return static_cast<std::size_t>(*read_up_to_ - text_.data());
  }

  // The opening quote of the key just read: the last '"' before its closing one that is not
  // escaped (an even number of backslashes before it).
  [[nodiscard]] std::size_t key_start() const {
    const std::size_t close = read_offset() == 0 ? 0 : read_offset() - 1;
    for (std::size_t i = close; i-- > 0;) {
      if (text_[i] != '"') continue;
      std::size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return close;
  }

  // " in kernels.k.targets" for the object holding the key being read; "" at the top.
  [[nodiscard]] std::string path_text() const {
    std::string path;
    for (std::size_t i = 0; i + 1 < open_.size(); ++i) {
      if (open_[i].value->is_array()) {
        path += "[" + std::to_string(open_[i].elements - 1) + "]";
      } else {
        const std::string_view key = open_[i].key;
        path += (path.empty() ? "" : ".") + printable(key.substr(0, kMaxExcerpt)) +
                (key.size() > kMaxExcerpt ? "..." : "");
      }
    }
    return path.empty() ? "" : " in " + path;
  }

  Json& root_;
  std::string_view text_;
  const char* const* read_up_to_;
  std::vector<Open> open_;
};

// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
// prefix (the location is reported separately) and with what it last read cut to the part
// after the last string: the text of a string (a secret in a broken file) is not repeated.
std::string syntax_message(const SyntaxError& e) {
  std::string what = e.what;
  const auto column = what.find("column ");
  const auto colon = what.find(": ", column == std::string::npos ? 0 : column);
  if (colon != std::string::npos) what.erase(0, colon + 2);
  const std::string marker = "; last read: '";
  const auto at = what.find(marker);
  if (at == std::string::npos) return what;
  const std::string before = what.substr(0, at);
  const std::size_t after = std::min(what.size(), at + marker.size() + e.last_token.size() + 1);
  const std::string rest = what.substr(after);
  if (before.find("invalid string") != std::string::npos) return before + rest;  // inside one
  const auto quote = e.last_token.rfind('"');
  std::string_view tail(e.last_token);
  if (quote != std::string::npos) tail.remove_prefix(quote + 1);
  if (tail.empty()) return before + rest;
  const bool cut = tail.size() > kMaxExcerpt;
  if (cut) tail.remove_prefix(tail.size() - kMaxExcerpt);
  return before + marker + (cut ? "..." : "") + printable(tail) + "'" + rest;
}

}  // namespace

std::string excerpt(std::string_view text) {
  return "'" + printable(text.substr(0, kMaxExcerpt)) + (text.size() > kMaxExcerpt ? "...'" : "'");
}

SourceLocation location_of_offset(std::string_view text, std::size_t offset,
                                  const SourceLocation& origin) {
  SourceLocation loc{origin.file, origin.line > 0 ? origin.line : 1,
                     origin.column > 0 ? origin.column : 1};
  const std::size_t end = std::min(offset, text.size());
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

template <class Json>
Result<Json> parse_untrusted_json(std::string_view text, const SourceLocation& origin) {
  Json root;
  const char* read_up_to = text.data();
  Builder<Json> builder(root, text, &read_up_to);
  const TrackingIterator first(text.data(), &read_up_to);
  const TrackingIterator last(text.data() + text.size(), nullptr);
  if (Json::sax_parse(first, last, &builder)) return root;
  if (builder.structure_)
    return make_error(builder.structure_->message,
                      location_of_offset(text, builder.structure_->offset, origin));
  if (builder.syntax_) {
    const std::size_t position = builder.syntax_->position;
    return make_error("not valid JSON: " + syntax_message(*builder.syntax_),
                      location_of_offset(text, position > 0 ? position - 1 : 0, origin));
  }
  return make_error("not valid JSON", location_of_offset(text, 0, origin));
}

template Result<nlohmann::json> parse_untrusted_json<nlohmann::json>(std::string_view,
                                                                     const SourceLocation&);
template Result<nlohmann::ordered_json> parse_untrusted_json<nlohmann::ordered_json>(
    std::string_view, const SourceLocation&);

}  // namespace kev::io
