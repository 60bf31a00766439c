#include "error_line.hpp"

#include <iostream>

#include "siskin/io.hpp"

namespace siskin::cli {

namespace {
// The most of one message that is printed: a file's 5 MB line quoted in it is cut.
constexpr size_t kMaxMessageBytes = 2000;
} // namespace

std::string one_line(std::string_view message) {
    std::string joined;
    while (!message.empty()) {
        size_t end = message.find('\n');
        std::string_view line = message.substr(0, end);
        message = end == std::string_view::npos ? std::string_view() : message.substr(end + 1);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
            line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
        if (line.empty()) continue;
        if (!joined.empty()) joined += "; ";
        joined += line;
    }
    return printable_text(joined, kMaxMessageBytes);
}

int print_error(std::string_view message) {
    std::cerr << "siskin: error: " << one_line(message) << std::endl;
    return 1;
}

} // namespace siskin::cli
