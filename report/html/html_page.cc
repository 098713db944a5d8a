// The HTML page around the report's model; see html_page.h.
#include "report/html/html_page.h"

#include "report/html/csp_hash.h"
#include "report/html/html_assets.h"

namespace hwt::report::html {
namespace {

constexpr char kModelOpen[] =
    "<script type=\"application/json\" id=\"hwt-model\">";
constexpr char kScriptClose[] = "</script>";

}  // namespace

std::string ContentSecurityPolicy() {
  // default-src 'none' covers connect, img, font, media, object, frame,
  // worker and manifest requests; base-uri and form-action are not covered
  // by it.
  return "default-src 'none'; script-src " + CspHashSource(PageScript()) +
         "; style-src " + CspHashSource(PageStyle()) +
         "; base-uri 'none'; form-action 'none'";
}

std::string EscapeJsonForScript(std::string_view json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
               (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      out += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderPage(std::string_view title, std::string_view model_json) {
  const std::string model = EscapeJsonForScript(model_json);
  std::string out;
  out.reserve(model.size() + PageScript().size() + PageStyle().size() +
              PageBody().size() + 1024);
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"";
  out += EscapeHtml(ContentSecurityPolicy());
  out +=
      "\">\n<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<meta name=\"generator\" content=\"hwt-report\">\n";
  out += "<title>" + EscapeHtml(title) + "</title>\n<style>";
  out += PageStyle();
  out += "</style>\n</head>\n<body>\n";
  out += PageBody();
  out += kModelOpen;
  out += model;
  out += kScriptClose;
  out += "\n<script>";
  out += PageScript();
  out += kScriptClose;
  out += "\n</body>\n</html>\n";
  return out;
}

std::string ExtractModel(std::string_view page) {
  const size_t open = page.find(kModelOpen);
  if (open == std::string_view::npos) return "";
  const size_t start = open + std::string_view(kModelOpen).size();
  const size_t close = page.find(kScriptClose, start);
  if (close == std::string_view::npos) return "";
  // The escapes EscapeJsonForScript wrote are JSON escapes: the text is the
  // same JSON document; turn them back for a byte-for-byte comparison.
  std::string out;
  std::string_view text = page.substr(start, close - start);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const std::string_view escape = text.substr(i, 6);
    if (escape == "\\u003c") {
      out += '<';
    } else if (escape == "\\u003e") {
      out += '>';
    } else if (escape == "\\u0026") {
      out += '&';
    } else if (escape == "\\u2028") {
      out += "\xe2\x80\xa8";
    } else if (escape == "\\u2029") {
      out += "\xe2\x80\xa9";
    } else {
      out += text.substr(i, 2);  // another escape, kept as it is
      ++i;
      continue;
    }
    i += 5;
  }
  return out;
}

}  // namespace hwt::report::html
