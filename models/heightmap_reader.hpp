// Heightmap files: grayscale images (PGM, PNG) and CSV grids of heights.
#pragma once

#include <string>
#include <vector>

namespace hybridsim {

// A grayscale image as rows of levels in [0, 1] (gray / maximum), row 0 the image's top row.
// PGM (P2 text or P5 binary, 8 or 16 bits) and PNG (read as 8-bit gray). Throws InputError naming
// the file when it cannot be read or is not such an image, or has above 2^24 cells.
std::vector<std::vector<double>> read_gray_image(const std::string& path);

// A CSV file of heights (m), one grid row per line, row 0 first. Throws InputError naming the
// file, row and column of a value that is not a finite number.
std::vector<std::vector<double>> read_height_csv(const std::string& path);

}  // namespace hybridsim
