// The tinyxml2 adapter of the importers (URDF, MJCF): one place that includes tinyxml2.h. Loads a
// document with line-numbered syntax errors and reads attributes as checked numbers, so that every
// error names the file, the line and the element.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tinyxml2 {
class XMLDocument;
class XMLElement;
}  // namespace tinyxml2

namespace hybridsim {

using XmlElement = tinyxml2::XMLElement;

// A parsed XML file. `source` names it in messages.
class XmlDocument {
 public:
  // InputError "source:line: XML syntax error: ..." for text that is not well-formed XML.
  XmlDocument(const std::string& text, std::string source);
  ~XmlDocument();
  XmlDocument(const XmlDocument&) = delete;
  XmlDocument& operator=(const XmlDocument&) = delete;

  const XmlElement& root() const;
  const std::string& source() const { return source_; }

  // "source:line: <tag name='n'>: message" as an InputError.
  [[noreturn]] void fail(const XmlElement& element, const std::string& message) const;
  // "source:line: <tag name='n'>" for warnings.
  std::string locate(const XmlElement& element) const;

 private:
  std::unique_ptr<tinyxml2::XMLDocument> document_;
  std::string source_;
};

// The element's tag and, when it has one, its name: "<joint name='hinge'>".
std::string describe_element(const XmlElement& element);
const char* element_name(const XmlElement& element);  // the tag
int element_line(const XmlElement& element);
const XmlElement* first_child(const XmlElement& element, const char* tag = nullptr);
const XmlElement* next_sibling(const XmlElement& element, const char* tag = nullptr);
// An element's text, or nullopt when it has none.
std::optional<std::string> element_text(const XmlElement& element);
// An attribute's text, or nullopt when it is absent.
std::optional<std::string> attribute(const XmlElement& element, const char* name);
std::vector<std::string> attribute_names(const XmlElement& element);

// An attribute's whitespace-separated numbers, read exactly (std::from_chars, no locale). Fails
// through `document` naming the attribute when a word is not a finite number or the count differs
// from `count` (any count when `count` is 0).
std::vector<double> numbers(const XmlDocument& document, const XmlElement& element,
                            const char* name, std::size_t count);
// The same for an attribute's text taken from elsewhere (an MJCF default class).
std::vector<double> numbers_from_text(const XmlDocument& document, const XmlElement& element,
                                      const char* name, const std::string& text, std::size_t count);
// The same for an element's text ("<velocity>0 0 1</velocity>"), named by its tag in messages.
std::vector<double> element_numbers(const XmlDocument& document, const XmlElement& element,
                                    std::size_t count);
// One number, or `fallback` when the attribute is absent.
double number(const XmlDocument& document, const XmlElement& element, const char* name,
              double fallback);
template <std::size_t N>
std::array<double, N> fixed_numbers(const XmlDocument& document, const XmlElement& element,
                                    const char* name, const std::array<double, N>& fallback) {
  if (!attribute(element, name)) return fallback;
  const std::vector<double> values = numbers(document, element, name, N);
  std::array<double, N> result{};
  for (std::size_t i = 0; i < N; ++i) result[i] = values[i];
  return result;
}

}  // namespace hybridsim
