#include "models/heightmap_reader.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <png.h>

#include "collision/triangle_surface.hpp"
#include "core/errors.hpp"
#include "models/input_file.hpp"

namespace hybridsim {
namespace {

InputError file_error(const std::string& path, const std::string& what) {
  return InputError(fmt::format("heightmap file '{}': {}", path, what));
}

// Refused before the image is allocated.
void check_image_size(const std::string& path, std::int64_t width, std::int64_t height) {
  if (width < 2 || height < 2 || (width - 1) * (height - 1) > kMaxHeightmapCells) {
    throw file_error(path, fmt::format("{} by {} pixels: a heightmap needs 2 to 4097 pixels a "
                                       "side and at most {} cells",
                                       width, height, kMaxHeightmapCells));
  }
}

std::vector<std::vector<double>> read_pgm(const std::string& path, std::ifstream& file) {
  std::string magic;
  file >> magic;
  // Header numbers, skipping comments.
  const auto number = [&](const char* what) {
    file >> std::ws;
    while (file.peek() == '#') {
      std::string comment;
      std::getline(file, comment);
      file >> std::ws;
    }
    std::int64_t value = -1;
    if (!(file >> value) || value <= 0) throw file_error(path, fmt::format("bad {}", what));
    return value;
  };
  const std::int64_t width = number("width"), height = number("height");
  const std::int64_t maximum = number("maximum gray level");
  if (maximum > 65535) throw file_error(path, "maximum gray level above 65535");
  check_image_size(path, width, height);
  std::vector<std::vector<double>> levels(static_cast<std::size_t>(height),
                                          std::vector<double>(static_cast<std::size_t>(width)));
  const bool binary = magic == "P5";
  if (binary) file.get();  // the single whitespace before the pixels
  for (auto& row : levels) {
    for (double& level : row) {
      std::int64_t gray = 0;
      if (binary) {
        const int high = file.get();
        const int low = maximum > 255 ? file.get() : 0;
        if (!file) throw file_error(path, "ends before its last pixel");
        gray = maximum > 255 ? high * 256 + low : high;
      } else if (!(file >> gray)) {
        throw file_error(path, "ends before its last pixel, or holds a non-number");
      }
      if (gray < 0 || gray > maximum) {
        throw file_error(path, fmt::format("gray level {} outside 0..{}", gray, maximum));
      }
      level = static_cast<double>(gray) / static_cast<double>(maximum);
    }
  }
  return levels;
}

std::vector<std::vector<double>> read_png(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&image, path.c_str()) == 0) {
    throw file_error(path, fmt::format("not a PNG image ({})", image.message));
  }
  check_image_size(path, image.width, image.height);
  image.format = PNG_FORMAT_GRAY;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr) == 0) {
    const std::string message = image.message;
    png_image_free(&image);
    throw file_error(path, fmt::format("cannot be decoded ({})", message));
  }
  std::vector<std::vector<double>> levels(image.height, std::vector<double>(image.width));
  for (std::size_t row = 0; row < image.height; ++row) {
    for (std::size_t column = 0; column < image.width; ++column) {
      levels[row][column] = pixels[row * image.width + column] / 255.0;
    }
  }
  return levels;
}

}  // namespace

std::vector<std::vector<double>> read_gray_image(const std::string& path) {
  check_input_file(path, "heightmap", kMaxDataFileBytes);
  std::ifstream file(path, std::ios::binary);
  if (!file) throw file_error(path, "cannot be opened");
  char first[2] = {0, 0};
  file.read(first, 2);
  if (first[0] == 'P' && (first[1] == '2' || first[1] == '5')) {
    file.seekg(0);
    return read_pgm(path, file);
  }
  if (static_cast<unsigned char>(first[0]) == 0x89 && first[1] == 'P') return read_png(path);
  throw file_error(path, "neither a PGM (P2, P5) nor a PNG image");
}

std::vector<std::vector<double>> read_height_csv(const std::string& path) {
  check_input_file(path, "heightmap", kMaxDataFileBytes);
  std::ifstream file(path);
  if (!file) throw file_error(path, "cannot be opened");
  std::vector<std::vector<double>> heights;
  std::string line;
  std::int64_t values = 0;
  while (std::getline(file, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::vector<double>& row = heights.emplace_back();
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      const std::size_t column = row.size();
      double value = kNaN;
      std::size_t used = 0;
      try {
        value = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || cell.find_first_not_of(" \t\r", used) != std::string::npos ||
          !std::isfinite(value)) {
        throw file_error(path, fmt::format("row {}, column {}: '{}' is not a finite height",
                                           heights.size() - 1, column, cell));
      }
      row.push_back(value);
      if (++values > 4 * kMaxHeightmapCells) throw file_error(path, "too many heights");
    }
  }
  return heights;
}

}  // namespace hybridsim
