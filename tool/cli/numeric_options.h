#pragma once
// The checks every numeric option of every subcommand gets, applied in one place by the
// option's type (main.cpp calls check_numeric_options once all subcommands are added).
// CLI11 reads "nan" and "inf" as numbers that pass every range check (a NaN threshold
// turned SLOWER into UNSURE), "-1" into an unsigned option as 2^64 - 1, and "010" as octal.
namespace CLI {
class App;
}

namespace kev::cli {

// Floating options: a finite number in decimal notation.
// Integer options: decimal digits that fit in 64 bits (leading zeros dropped). No option of
// kernelevo takes a negative integer.
void check_numeric_options(CLI::App& app);

}  // namespace kev::cli
