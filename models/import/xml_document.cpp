#include "models/import/xml_document.hpp"

#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <tinyxml2.h>

#include "core/errors.hpp"

namespace hybridsim {

XmlDocument::XmlDocument(const std::string& text, std::string source)
    : document_(std::make_unique<tinyxml2::XMLDocument>(true, tinyxml2::COLLAPSE_WHITESPACE)),
      source_(std::move(source)) {
  if (document_->Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    // tinyxml2's text repeats the code and the line ("Error=... Line number=3: detail"): the
    // error's name and the detail suffice.
    const std::string detail = document_->ErrorStr();
    const std::size_t after_line = detail.find(": ", detail.find("Line number="));
    throw InputError(fmt::format(
        "{}:{}: XML syntax error: {}{}", source_, std::max(1, document_->ErrorLineNum()),
        document_->ErrorName(),
        after_line == std::string::npos ? "" : " (" + detail.substr(after_line + 2) + ")"));
  }
  if (document_->RootElement() == nullptr) {
    throw InputError(fmt::format("{}:1: the XML file has no element", source_));
  }
}

XmlDocument::~XmlDocument() = default;

const XmlElement& XmlDocument::root() const {
  return *document_->RootElement();
}

void XmlDocument::fail(const XmlElement& element, const std::string& message) const {
  throw InputError(fmt::format("{}: {}", locate(element), message));
}

std::string XmlDocument::locate(const XmlElement& element) const {
  return fmt::format("{}:{}: {}", source_, element.GetLineNum(), describe_element(element));
}

std::string describe_element(const XmlElement& element) {
  const char* name = element.Attribute("name");
  return name != nullptr ? fmt::format("<{} name='{}'>", element.Name(), name)
                         : fmt::format("<{}>", element.Name());
}

const char* element_name(const XmlElement& element) {
  return element.Name();
}
int element_line(const XmlElement& element) {
  return element.GetLineNum();
}

const XmlElement* first_child(const XmlElement& element, const char* tag) {
  return element.FirstChildElement(tag);
}

const XmlElement* next_sibling(const XmlElement& element, const char* tag) {
  return element.NextSiblingElement(tag);
}

std::optional<std::string> element_text(const XmlElement& element) {
  const char* text = element.GetText();
  if (text == nullptr) return std::nullopt;
  return std::string(text);
}

std::optional<std::string> attribute(const XmlElement& element, const char* name) {
  const char* value = element.Attribute(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> attribute_names(const XmlElement& element) {
  std::vector<std::string> names;
  for (const tinyxml2::XMLAttribute* a = element.FirstAttribute(); a != nullptr; a = a->Next()) {
    names.emplace_back(a->Name());
  }
  return names;
}

std::vector<double> numbers(const XmlDocument& document, const XmlElement& element,
                            const char* name, std::size_t count) {
  const char* text = element.Attribute(name);
  if (text == nullptr) document.fail(element, fmt::format("needs the attribute '{}'", name));
  return numbers_from_text(document, element, name, text, count);
}

namespace {

// The numbers of `text`; `what` names where they come from in messages ("attribute size='1 2'").
std::vector<double> parse_numbers(const XmlDocument& document, const XmlElement& element,
                                  const std::string& what, const std::string& text,
                                  std::size_t count) {
  std::vector<double> values;
  const std::string_view all(text);
  std::size_t at = 0;
  while (true) {
    while (at < all.size() && (all[at] == ' ' || all[at] == '\t' || all[at] == '\n' ||
                               all[at] == '\r' || all[at] == ',')) {
      ++at;
    }
    if (at == all.size()) break;
    std::size_t end = at;
    while (end < all.size() && all[end] != ' ' && all[end] != '\t' && all[end] != '\n' &&
           all[end] != '\r' && all[end] != ',') {
      ++end;
    }
    // from_chars takes no leading '+', which XML writers sometimes emit.
    const std::size_t start = all[at] == '+' ? at + 1 : at;
    double value = 0.0;
    const auto [stop, error] = std::from_chars(all.data() + start, all.data() + end, value);
    if (error != std::errc() || stop != all.data() + end || !std::isfinite(value)) {
      document.fail(element,
                    fmt::format("{}: '{}' is not a finite number", what, all.substr(at, end - at)));
    }
    values.push_back(value);
    at = end;
  }
  if (count != 0 && values.size() != count) {
    document.fail(element, fmt::format("{} needs {} number{}, not {}", what, count,
                                       count == 1 ? "" : "s", values.size()));
  }
  return values;
}

}  // namespace

std::vector<double> numbers_from_text(const XmlDocument& document, const XmlElement& element,
                                      const char* name, const std::string& text,
                                      std::size_t count) {
  return parse_numbers(document, element, fmt::format("attribute {}='{}'", name, text), text,
                       count);
}

std::vector<double> element_numbers(const XmlDocument& document, const XmlElement& element,
                                    std::size_t count) {
  const std::string text = element_text(element).value_or("");
  return parse_numbers(document, element, fmt::format("<{}> '{}'", element_name(element), text),
                       text, count);
}

double number(const XmlDocument& document, const XmlElement& element, const char* name,
              double fallback) {
  if (element.Attribute(name) == nullptr) return fallback;
  return numbers(document, element, name, 1)[0];
}

}  // namespace hybridsim
