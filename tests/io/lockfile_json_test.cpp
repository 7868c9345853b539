#include "io/lockfile_json.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "support/cpu_time.h"

namespace kev {
namespace {

namespace fs = std::filesystem;

const std::string kHash = "sha256:" + std::string(64, 'c');

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("kev_lockjson_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A one-entry lockfile text with `entry` as the H200 entry's body.
std::string with_entry(const std::string& entry) {
  return R"({"schema_version": 1, "kernels": {"k": {"source": "src/k.cu", "source_hash": ")" +
         kHash + R"(", "targets": {"sm_90": {"NVIDIA H200": )" + entry + "}}}}}";
}

TEST(LockfileJson, RoundTripOfTheFixtureIsByteIdentical) {
  const std::string text = read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  auto lock = parse_lockfile(text, "basic.lock.json");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(format_lockfile(*lock), text);
}

TEST(LockfileJson, ReadsEveryField) {
  const std::string text = read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  auto lock = parse_lockfile(text, "basic.lock.json");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  ASSERT_EQ(lock->kernels.size(), 3u);
  const LockedKernel& gemm = lock->kernels.at("gemm_tiled");
  EXPECT_EQ(gemm.source, "src/gemm.cu");
  // The older form of a variant, a bare path: read, never current (no hashes).
  ASSERT_TRUE(gemm.variant.has_value());
  EXPECT_EQ(gemm.variant->file, "kernelevo/variants/gemm_tiled.cu");
  EXPECT_FALSE(gemm.variant->has_hashes());
  EXPECT_EQ(lock->schema_version, 1);
  const LockEntry& h200 = gemm.targets.at("sm_90").at("NVIDIA H200");
  EXPECT_TRUE(h200.is_default);
  EXPECT_FALSE(gemm.targets.at("sm_90").at("NVIDIA H100 80GB HBM3").is_default);
  EXPECT_EQ(h200.params.at("TILE_M"), Value(256));
  EXPECT_EQ(h200.params.at("LOAD"), Value(std::string("float2")));
  EXPECT_TRUE(h200.params.at("SCALE").is_double());
  EXPECT_DOUBLE_EQ(h200.params.at("SCALE").as_double(), 1.0);
  EXPECT_DOUBLE_EQ(*h200.time_us, 401.0);
  EXPECT_DOUBLE_EQ(*h200.baseline_us, 650.3);
  const LockEntry& tiny = lock->kernels.at("tiny_scale").targets.at("sm_90").at("NVIDIA H200");
  EXPECT_TRUE(tiny.tuned_with.empty());
  EXPECT_DOUBLE_EQ(*tiny.time_us, 0.815);
}

TEST(LockfileJson, FormatsCanonicallyAndReadsBackTheSameModel) {
  Lockfile lock;
  LockEntry e;
  e.params = {
      {"Z", Value(-3)}, {"A", Value(2.0)}, {"M", Value(1e-7)}, {"T", Value(std::string("cub::X"))}};
  e.time_us = 70.14999;
  e.baseline_us = 9.996;
  set_entry(lock, "b", "src/b.cu", kHash, "sm_90", "NVIDIA H200", e);
  set_entry(lock, "a", "src/a.cu", kHash, "sm_80", "NVIDIA A100", LockEntry{});
  const std::string text = format_lockfile(lock);
  EXPECT_EQ(
      text,
      "{\n"
      "  \"kernels\": {\n"
      "    \"a\": {\n"
      "      \"source\": \"src/a.cu\",\n"
      "      \"source_hash\": \"" +
          kHash +
          "\",\n"
          "      \"targets\": {\n"
          "        \"sm_80\": {\n"
          "          \"NVIDIA A100\": {\n"
          "            \"default\": true,\n"
          "            \"params\": {}\n"
          "          }\n"
          "        }\n"
          "      }\n"
          "    },\n"
          "    \"b\": {\n"
          "      \"source\": \"src/b.cu\",\n"
          "      \"source_hash\": \"" +
          kHash +
          "\",\n"
          "      \"targets\": {\n"
          "        \"sm_90\": {\n"
          "          \"NVIDIA H200\": {\n"
          "            \"baseline_us\": 10.0,\n"
          "            \"default\": true,\n"
          "            \"params\": {\"A\": 2.0, \"M\": 1e-07, \"T\": \"cub::X\", \"Z\": -3},\n"
          "            \"time_us\": 70.1\n"
          "          }\n"
          "        }\n"
          "      }\n"
          "    }\n"
          "  },\n"
          "  \"schema_version\": 1\n"
          "}\n");
  auto back = parse_lockfile(text, "x");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->kernels.at("b").targets.at("sm_90").at("NVIDIA H200").params, e.params);
  EXPECT_EQ(format_lockfile(*back), text);
  EXPECT_EQ(format_lockfile(Lockfile{}), "{\n  \"kernels\": {},\n  \"schema_version\": 1\n}\n");
}

// An entry tuned from a dirty L2 says so, so `check` times it the same way; the default
// (cold, clean L2) is not written, so lockfiles tuned the default way do not change.
TEST(LockfileJson, AnEntrysTimingIsReadAndWrittenOnlyWhenNotTheDefault) {
  auto dirty = parse_lockfile(with_entry(R"({"params": {}, "timing": "cold-dirty-l2"})"), "l.json");
  ASSERT_TRUE(dirty.ok()) << dirty.error().to_string();
  const LockEntry& e = dirty->kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  EXPECT_EQ(e.timing, "cold-dirty-l2");
  EXPECT_NE(format_lockfile(*dirty).find("\"timing\": \"cold-dirty-l2\""), std::string::npos);
  auto clean = parse_lockfile(with_entry(R"({"params": {}, "timing": "cold-l2"})"), "l.json");
  ASSERT_TRUE(clean.ok()) << clean.error().to_string();
  EXPECT_EQ(format_lockfile(*clean).find("timing"), std::string::npos);
  // tune --l2 clean+write-back: each run was charged the write-back it left.
  auto charged =
      parse_lockfile(with_entry(R"({"params": {}, "timing": "cold-l2+write-back"})"), "l.json");
  ASSERT_TRUE(charged.ok()) << charged.error().to_string();
  EXPECT_TRUE(timed_with_writeback(charged->kernels.at("k").targets.at("sm_90").at("NVIDIA H200")));
  EXPECT_NE(format_lockfile(*charged).find("\"timing\": \"cold-l2+write-back\""),
            std::string::npos);
}

// An entry whose code NVRTC compiled (tune --compiler nvrtc) says so, so `check` and
// `compare` compile it the same way; nvcc's (the default) is not written.
TEST(LockfileJson, AnEntrysCompilerIsReadAndWrittenOnlyWhenNotTheDefault) {
  auto nvrtc = parse_lockfile(with_entry(R"({"compiler": "nvrtc", "params": {}})"), "l.json");
  ASSERT_TRUE(nvrtc.ok()) << nvrtc.error().to_string();
  const LockEntry& e = nvrtc->kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  EXPECT_EQ(device_code_of(e), DeviceCodeCompiler::nvrtc);
  EXPECT_NE(format_lockfile(*nvrtc).find("\"compiler\": \"nvrtc\""), std::string::npos);
  auto nvcc = parse_lockfile(with_entry(R"({"compiler": "nvcc", "params": {}})"), "l.json");
  ASSERT_TRUE(nvcc.ok()) << nvcc.error().to_string();
  EXPECT_EQ(device_code_of(nvcc->kernels.at("k").targets.at("sm_90").at("NVIDIA H200")),
            DeviceCodeCompiler::nvcc);
  EXPECT_EQ(format_lockfile(*nvcc).find("compiler"), std::string::npos);
}

// An entry says after which revision of the L2 flush its times were taken, so `tune` and
// `merge` do not weigh them against times taken after another; one that does not say (tuned
// before entries said) is written back without it, byte for byte.
TEST(LockfileJson, AnEntrysFlushRevisionIsReadAndWrittenWhenKnown) {
  auto said = parse_lockfile(with_entry(R"({"flush": 3, "params": {}})"), "l.json");
  ASSERT_TRUE(said.ok()) << said.error().to_string();
  EXPECT_EQ(said->kernels.at("k").targets.at("sm_90").at("NVIDIA H200").flush, 3);
  const std::string text = format_lockfile(*said);
  EXPECT_NE(text.find("\"flush\": 3,\n"), std::string::npos) << text;
  auto again = parse_lockfile(text, "l.json");
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(format_lockfile(*again), text);
  auto unsaid = parse_lockfile(with_entry(R"({"params": {}})"), "l.json");
  ASSERT_TRUE(unsaid.ok()) << unsaid.error().to_string();
  EXPECT_EQ(unsaid->kernels.at("k").targets.at("sm_90").at("NVIDIA H200").flush, 0);
  EXPECT_EQ(format_lockfile(*unsaid).find("flush"), std::string::npos);
}

TEST(LockfileJson, TimeFormatIsStable) {
  EXPECT_EQ(format_lockfile_us(143.0), "143.0");
  EXPECT_EQ(format_lockfile_us(70.149), "70.1");
  EXPECT_EQ(format_lockfile_us(3.214), "3.21");
  EXPECT_EQ(format_lockfile_us(0.8123), "0.812");
  EXPECT_EQ(format_lockfile_us(9.996), "10.0");
  EXPECT_EQ(format_lockfile_us(0.99951), "1.00");
  EXPECT_EQ(format_lockfile_us(12345.67), "12345.7");
  for (double x : {0.0004, 0.9995, 1.0, 9.994, 9.995, 10.0, 99.95, 1234.5678}) {
    const std::string once = format_lockfile_us(x);
    EXPECT_EQ(format_lockfile_us(std::stod(once)), once) << x;
  }
}

// A time the reader takes is written so that it reads back, and writing it again gives the
// same text; a time no kernel takes (a 72-digit one was written cut off at 63 characters, one
// below half a nanosecond as 0.000, which reads as no time) is refused where it is read.
TEST(LockfileJson, EveryTimeThatReadsIsWrittenSoItReadsBack) {
  const auto read = [](const std::string& time) {
    return parse_lockfile(with_entry(R"({"params": {}, "time_us": )" + time + "}"), "in.lock.json");
  };
  for (const std::string time :
       {"1e10", "9999999999.96", "0.001", "0.0010004", "0.8123", "143.0", "12345.67"}) {
    const auto lock = read(time);
    ASSERT_TRUE(lock.ok()) << time << ": " << lock.error().to_string();
    const std::string written = format_lockfile(*lock);
    const auto again = parse_lockfile(written, "written.lock.json");
    ASSERT_TRUE(again.ok()) << time << ": " << again.error().to_string() << "\n" << written;
    EXPECT_EQ(format_lockfile(*again), written) << time;
    const auto& entry = again->kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
    ASSERT_TRUE(entry.time_us.has_value()) << time;
    EXPECT_NEAR(*entry.time_us / std::stod(time), 1.0, 0.01) << time << " -> " << written;
  }
  for (const std::string time : {"8.0133e71", "1e300", "1.7976931348623157e308", "10000000001",
                                 "1e-9", "0.00049996", "0.0009", "4.9e-324"}) {
    const auto lock = read(time);
    ASSERT_FALSE(lock.ok()) << time;
    EXPECT_NE(lock.error().to_string().find(
                  "in.lock.json:1:205: error: k sm_90 NVIDIA H200: time_us: expected a number of "
                  "microseconds from 0.001 to 1e10, not "),
              std::string::npos)
        << lock.error().to_string();
  }
}

struct BadCase {
  std::string name;
  std::string text;
  std::string message;  // the whole error, as printed
};

TEST(LockfileJson, RefusesBadFilesWithExactMessages) {
  const std::vector<BadCase> cases = {
      {"truncated", "{\n  \"kernels\": {\n    \"k\": {\n",
       "lock.json:4:1: error: not valid JSON: syntax error while parsing object key - unexpected "
       "end of input; expected string literal (the lockfile is corrupt; restore it from version "
       "control)"},
      {"garbage", "{\n  \"kernels\": {},\n  oops\n}\n",
       "lock.json:3:3: error: not valid JSON: syntax error while parsing object key - invalid "
       "literal; last read: ': {},<U+000A>  o'; expected string literal (the lockfile "
       "is corrupt; "
       "restore it from version control)"},
      {"empty", "",
       "lock.json:1:1: error: not valid JSON: syntax error while parsing value - unexpected end of "
       "input; expected '[', '{', or a literal (the lockfile is corrupt; restore it from version "
       "control)"},
      {"newer schema", R"({"schema_version": 5, "kernels": {}})",
       "lock.json:1:2: error: schema_version 5 is newer than this kernelevo reads (4); upgrade "
       "kernelevo"},
      {"newer schema with new fields",
       R"({"schema_version": 7, "kernels": {"k": {"shiny": 1}}, "x": 1})",
       "lock.json:1:2: error: schema_version 7 is newer than this kernelevo reads (4); upgrade "
       "kernelevo"},
      {"unknown top-level key", R"({"schema_version": 1, "kernels": {}, "x": 1})",
       "lock.json:1:38: error: unknown key 'x' (expected kernels, schema_version)"},
      {"schema missing", R"({"kernels": {}})", "lock.json:1:1: error: missing \"schema_version\""},
      {"schema string", R"({"schema_version": "1", "kernels": {}})",
       "lock.json:1:2: error: schema_version: expected an integer"},
      {"schema zero", R"({"schema_version": 0, "kernels": {}})",
       "lock.json:1:2: error: schema_version: unsupported schema_version 0"},
      {"root array", " [1, 2]", "lock.json:1:2: error: expected an object, found an array"},
      {"kernels array", R"({"schema_version": 1, "kernels": []})",
       "lock.json:1:23: error: kernels: expected an object, found an array"},
      {"duplicate key", R"({"schema_version": 1, "kernels": {}, "kernels": {}})",
       "lock.json:1:38: error: duplicate key 'kernels'"},
      {"duplicate param", with_entry(R"({"params": {"BLOCK": 128, "BLOCK": 256}})"),
       "lock.json:1:216: error: duplicate key 'BLOCK' in kernels.k.targets.sm_90.NVIDIA "
       "H200.params"},
      {"C code in a value", with_entry(R"({"params": {"BLOCK": "256); system(\"id\"); //"}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: string value '256); "
       "system(\"id\"); //' "
       "refused: only identifiers (like float4) are allowed"},
      {"macro injection", with_entry(R"({"params": {"BLOCK": "128\n#include </etc/passwd>"}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: string value '128?#include "
       "</etc/passwd>' "
       "refused: only identifiers (like float4) are allowed"},
      {"huge string",
       with_entry(R"({"params": {"BLOCK": ")" + std::string(1 << 20, 'A') + R"("}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: string value of 1048576 "
       "characters "
       "refused (at most 64)"},
      {"boolean value", with_entry(R"({"params": {"BLOCK": true}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: expected an integer, a number "
       "or an "
       "identifier, found a boolean"},
      {"object value", with_entry(R"({"params": {"BLOCK": {"a": 1}}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: expected an integer, a number "
       "or an "
       "identifier, found an object"},
      {"huge integer", with_entry(R"({"params": {"BLOCK": 18446744073709551615}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params.BLOCK: integer out of range"},
      {"bad param name", with_entry(R"({"params": {"BLOCK=1 -DX": 1}})"),
       "lock.json:1:202: error: k sm_90 NVIDIA H200: params: parameter name 'BLOCK=1 -DX' is not "
       "an identifier"},
      {"missing params", with_entry(R"({"time_us": 3.0})"),
       "lock.json:1:175: error: k sm_90 NVIDIA H200: missing \"params\""},
      {"unknown entry key", with_entry(R"({"params": {}, "flags": "-O0"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: unknown key 'flags' (expected baseline_us, "
       "buckets, by, compiler, default, flush, params, time_us, timing, tuned_with)"},
      {"flush revision zero", with_entry(R"({"params": {}, "flush": 0})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: flush: expected an L2 flush revision from 1 "
       "to 1000, not '0'"},
      {"flush revision too large", with_entry(R"({"params": {}, "flush": 1001})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: flush: expected an L2 flush revision from 1 "
       "to 1000, not '1001'"},
      {"flush revision negative", with_entry(R"({"params": {}, "flush": -3})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: flush: expected an L2 flush revision from 1 "
       "to 1000, not '-3'"},
      {"flush revision fractional", with_entry(R"({"params": {}, "flush": 2.5})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: flush: expected an L2 flush revision from 1 "
       "to 1000, not '2.5'"},
      {"flush revision a string", with_entry(R"({"params": {}, "flush": "3"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: flush: expected an L2 flush revision from 1 "
       "to 1000, not '\"3\"'"},
      {"unknown compiler", with_entry(R"({"params": {}, "compiler": "clang"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: compiler: expected nvcc or nvrtc, not "
       "'clang'"},
      {"compiler not a string", with_entry(R"({"params": {}, "compiler": ["nvcc"]})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: compiler: expected a string, found an "
       "array"},
      {"unknown timing", with_entry(R"({"params": {}, "timing": "warm-l2"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: timing: expected cold-l2, cold-dirty-l2 or "
       "cold-l2+write-back, "
       "not 'warm-l2'"},
      {"timing not a string", with_entry(R"({"params": {}, "timing": 1})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: timing: expected a string, found an integer"},
      {"negative time", with_entry(R"({"params": {}, "time_us": -1})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: time_us: expected a positive number of "
       "microseconds"},
      {"time as string", with_entry(R"({"params": {}, "time_us": "fast"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: time_us: expected a number of microseconds, "
       "found a string"},
      {"default not bool", with_entry(R"({"params": {}, "default": 1})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: default: expected true or false"},
      {"multi-line tuned_with", with_entry(R"({"params": {}, "tuned_with": "a\nb"})"),
       "lock.json:1:205: error: k sm_90 NVIDIA H200: tuned_with: expected one line of at most 512 "
       "printable characters"},
      {"bad arch",
       R"({"schema_version": 1, "kernels": {"k": {"source": "k.cu", "source_hash": ")" + kHash +
           R"(", "targets": {"hopper": {}}}}})",
       "lock.json:1:161: error: k: targets: 'hopper' is not an architecture like sm_90"},
      {"bad device",
       R"({"schema_version": 1, "kernels": {"k": {"source": "k.cu", "source_hash": ")" + kHash +
           R"(", "targets": {"sm_90": {"*/ evil": {"params": {}}}}}}})",
       "lock.json:1:171: error: k sm_90: device name '*/ evil' refused (letters, digits, spaces, "
       "_.-()+, only)"},
      {"two defaults",
       R"({"schema_version": 1, "kernels": {"k": {"source": "k.cu", "source_hash": ")" + kHash +
           R"(", "targets": {"sm_90": {"A": {"params": {}, "default": true}, "B": {"params": {}, "default": true}}}}}})",
       "lock.json:1:161: error: k sm_90: more than one device is marked default"},
      {"absolute source",
       R"({"schema_version": 1, "kernels": {"k": {"source": "/etc/passwd", "source_hash": ")" +
           kHash + R"(", "targets": {}}}})",
       "lock.json:1:41: error: k: source: '/etc/passwd' is not a relative path inside the project"},
      {"escaping source",
       R"({"schema_version": 1, "kernels": {"k": {"source": "src/../../x.cu", "source_hash": ")" +
           kHash + R"(", "targets": {}}}})",
       "lock.json:1:41: error: k: source: 'src/../../x.cu' is not a relative path inside the "
       "project"},
      {"bad hash",
       R"({"schema_version": 1, "kernels": {"k": {"source": "k.cu", "source_hash": "md5:abc", "targets": {}}}})",
       "lock.json:1:59: error: k: source_hash: 'md5:abc' is not \"sha256:\" and 64 hex digits"},
      {"bad kernel id", R"({"schema_version": 1, "kernels": {"a b": {}}})",
       "lock.json:1:35: error: kernels: kernel id 'a b' refused"},
      {"missing targets",
       R"({"schema_version": 1, "kernels": {"k": {"source": "k.cu", "source_hash": ")" + kHash +
           R"("}}})",
       "lock.json:1:35: error: k: missing \"targets\""},
  };
  for (const BadCase& c : cases) {
    auto r = parse_lockfile(c.text, "lock.json");
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_EQ(r.error().to_string(), c.message) << c.name;
    EXPECT_EQ(r.error().code, ExitCode::usage) << c.name;
  }
}

TEST(LockfileJson, ErrorsPointAtTheLineOfTheEntry) {
  const std::string text = read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  std::string bad = text;
  bad.replace(bad.find("\"SOFTMAX_VEC\": 4"), 16, "\"SOFTMAX_VEC\": \"4 + x\"");
  auto r = parse_lockfile(bad, "kernelevo.lock.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(),
            "kernelevo.lock.json:40:46: error: softmax_rows sm_90 NVIDIA H200: params.SOFTMAX_VEC: "
            "string "
            "value '4 + x' refused: only identifiers (like float4) are allowed");
  bad = text;
  bad.replace(bad.find("\"time_us\": 0.815"), 16, "\"time_us\": 0");
  r = parse_lockfile(bad, "kernelevo.lock.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(),
            "kernelevo.lock.json:55:13: error: tiny_scale sm_90 NVIDIA H200: time_us: expected a "
            "positive "
            "number of microseconds");
}

TEST(LockfileJson, APathologicalFileIsRefusedInLinearTime) {
  // 1 MiB of empty objects in an array took 30 s to refuse, 16 MiB hours.
  std::string text = "{\"source\": [";
  while (text.size() < (1u << 20)) text += "{}, ";
  text += "{}]}";
  const test_support::ThreadCpuTimer timer;
  auto r = parse_lockfile(text, "lock.json");
  EXPECT_LT(timer.seconds(), 1.0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(), "lock.json:1:1: error: missing \"schema_version\"");
}

TEST(LockfileJson, ALargeValidFileParsesInLinearTime) {
  // 20 000 kernels, about 9 MB: 7.5 s before, under the square of its size.
  Lockfile lock;
  for (int i = 0; i < 20000; ++i) {
    const std::string id = "kernel_" + std::to_string(i);
    LockEntry e;
    e.params = {{"BLOCK", Value(std::int64_t{128})}, {"VEC", Value(std::int64_t{4})}};
    e.time_us = 12.5;
    e.baseline_us = 20.0;
    e.tuned_with = "kernelevo 0.1.0, CUDA 13.0, strategy auto, 200 evaluations";
    set_entry(lock, id, "src/" + id + ".cu", kHash, "sm_90", "NVIDIA H200", e);
    set_entry(lock, id, "src/" + id + ".cu", kHash, "sm_80", "NVIDIA A100-SXM4-80GB", e);
  }
  const std::string text = format_lockfile(lock);
  ASSERT_GT(text.size(), 8u << 20);
  const test_support::ThreadCpuTimer timer;
  auto r = parse_lockfile(text, "lock.json");
  EXPECT_LT(timer.seconds(), 3.0);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->kernels.size(), 20000u);
}

TEST(LockfileJson, ASyntaxErrorDoesNotRepeatTheStringItSitsIn) {
  const std::string secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzABCD";
  for (const std::string& text :
       {"{\"schema_version\": 1, \"kernels\": {\"k\": {\"tuned_with\": \"" + secret + "\n",
        "{\"schema_version\": 1, \"kernels\": {\"" + secret + "\" oops",
        "{\"schema_version\": 1 \"" + secret + "\"}"}) {
    auto r = parse_lockfile(text, "lock.json");
    ASSERT_FALSE(r.ok());
    const std::string message = r.error().to_string();
    EXPECT_EQ(message.find("ghp_"), std::string::npos) << message;
    EXPECT_EQ(message.rfind("lock.json:1:", 0), 0u) << message;
    EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  }
}

TEST(LockfileJson, MissingFileIsAClearError) {
  TempDir dir;
  auto r = read_lockfile(dir.path() / "kernelevo.lock.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no lockfile at"), std::string::npos);
  EXPECT_EQ(r.error().code, ExitCode::usage);
  auto empty = read_lockfile_or_empty(dir.path() / "kernelevo.lock.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->kernels.empty());
}

TEST(LockfileJson, UpdateCreatesThenMergesEntries) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  auto add = [&](const std::string& id) {
    return update_lockfile(file, [&](Lockfile& lock) {
      LockEntry e;
      e.params = {{"BLOCK", Value(128)}};
      e.time_us = 5.0;
      set_entry(lock, id, "src/" + id + ".cu", kHash, "sm_90", "NVIDIA H200", e);
      return ok_status();
    });
  };
  ASSERT_TRUE(add("a").ok());
  ASSERT_TRUE(add("b").ok());
  auto lock = read_lockfile(file);
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(lock->kernels.size(), 2u);
  EXPECT_EQ(read_text(file), format_lockfile(*lock));
}

TEST(LockfileJson, UnchangedUpdateDoesNotRewriteTheFile) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  write_text(file, read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json"));
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  ASSERT_TRUE(update_lockfile(file, [](Lockfile&) { return ok_status(); }).ok());
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);  // not replaced by a rename
}

TEST(LockfileJson, CorruptOrNewerFileIsNeverOverwritten) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  for (const std::string& original :
       {std::string("{\"schema_version\": 1, \"kernels\": {"),
        std::string(R"({"schema_version": 5, "kernels": {}, "future": true})"),
        with_entry(R"({"params": {"BLOCK": "x; y"}})")}) {
    write_text(file, original);
    bool changed = false;
    const Status s = update_lockfile(file, [&](Lockfile&) {
      changed = true;
      return ok_status();
    });
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(changed);
    EXPECT_NE(s.error().to_string().find(file.string()), std::string::npos)
        << s.error().to_string();
    EXPECT_EQ(read_text(file), original);
    EXPECT_FALSE(write_lockfile(file, Lockfile{}).ok());
    EXPECT_EQ(read_text(file), original);
  }
}

TEST(LockfileJson, FailedChangeLeavesTheFileAlone) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  const std::string original =
      read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  write_text(file, original);
  const Status s = update_lockfile(file, [](Lockfile& lock) -> Status {
    lock.kernels.clear();
    return make_error("tuning interrupted");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(read_text(file), original);
}

// A change that leaves a time the file cannot hold (none, or not a number) is refused before
// anything is written: the lockfile stays as it was and stays readable.
TEST(LockfileJson, AnUpdateThatWouldNotReadBackIsRefused) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  const std::string original =
      read_text(fs::path(KERNELEVO_FIXTURES) / "lockfiles/basic.lock.json");
  for (const double bad : {0.0, -1.0, std::nan("")}) {
    write_text(file, original);
    const Status s = update_lockfile(file, [&](Lockfile& lock) {
      LockEntry e;
      e.params = {{"BLOCK", Value(128)}};
      e.time_us = bad;
      set_entry(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", e);
      return ok_status();
    });
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.error().to_string().find(file.string()), std::string::npos)
        << s.error().to_string();
    EXPECT_NE(s.error().to_string().find("time_us"), std::string::npos) << s.error().to_string();
    EXPECT_EQ(read_text(file), original) << bad;
  }
}

// A kernel with `variant` (the JSON text of its value).
std::string with_variant(const std::string& variant) {
  return R"({"schema_version": 2, "kernels": {"k": {"source": "src/k.cu", "source_hash": ")" +
         kHash + R"(", "targets": {}, "variant": )" + variant + "}}}";
}

TEST(LockfileJson, VariantRecordsItsFileAndBothHashesAndNeedsSchema2) {
  const std::string variant_hash = "sha256:" + std::string(64, 'a');
  Lockfile lock;
  LockedKernel& k = lock.kernels["k"];
  k.source = "src/k.cu";
  k.source_hash = kHash;
  k.variant = LockedVariant{"kernelevo-variants/k.cu", variant_hash, kHash};
  EXPECT_EQ(required_schema_version(lock), 2);
  lock.schema_version = 2;
  const std::string text = format_lockfile(lock);
  EXPECT_EQ(text,
            "{\n"
            "  \"kernels\": {\n"
            "    \"k\": {\n"
            "      \"source\": \"src/k.cu\",\n"
            "      \"source_hash\": \"" +
                kHash +
                "\",\n"
                "      \"targets\": {},\n"
                "      \"variant\": {\n"
                "        \"base_source_hash\": \"" +
                kHash +
                "\",\n"
                "        \"file\": \"kernelevo-variants/k.cu\",\n"
                "        \"hash\": \"" +
                variant_hash +
                "\"\n"
                "      }\n"
                "    }\n"
                "  },\n"
                "  \"schema_version\": 2\n"
                "}\n");
  auto back = parse_lockfile(text, "lock.json");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, lock);

  // Without a variant object the oldest schema is written, so older readers keep reading.
  k.variant.reset();
  EXPECT_EQ(required_schema_version(lock), 1);
  k.variant = LockedVariant{"kernelevo-variants/k.cu", "", ""};  // the older bare path
  EXPECT_EQ(required_schema_version(lock), 1);
}

TEST(LockfileJson, UpdateWritesSchema2OnlyWithAVariant) {
  TempDir dir;
  const fs::path file = dir.path() / "kernelevo.lock.json";
  ASSERT_TRUE(update_lockfile(file, [](Lockfile& lock) {
                set_entry(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", LockEntry{});
                return ok_status();
              }).ok());
  EXPECT_NE(read_text(file).find("\"schema_version\": 1"), std::string::npos);
  ASSERT_TRUE(update_lockfile(file, [](Lockfile& lock) {
                lock.kernels["k"].variant = LockedVariant{"v/k.cu", kHash, kHash};
                return ok_status();
              }).ok());
  EXPECT_NE(read_text(file).find("\"schema_version\": 2"), std::string::npos);
}

TEST(LockfileJson, VariantIsCheckedAsUntrustedInput) {
  const std::string good = "\"sha256:" + std::string(64, 'a') + "\"";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"file": "../outside.cu", "hash": )" + good + R"(, "base_source_hash": )" + good + "}",
       "k: variant: '../outside.cu' is not a relative path inside the lockfile's directory"},
      {R"({"file": "/etc/passwd", "hash": )" + good + R"(, "base_source_hash": )" + good + "}",
       "k: variant: '/etc/passwd' is not a relative path inside the lockfile's directory"},
      {R"("a/../../b.cu")", "k: variant: 'a/../../b.cu' is not a relative path"},
      {R"({"file": "v.cu", "hash": "sha256:xyz", "base_source_hash": )" + good + "}",
       "k: variant: hash: 'sha256:xyz' is not \"sha256:\" and 64 hex digits"},
      {R"({"file": "v.cu", "hash": )" + good + R"(, "base_source_hash": "abc"})",
       "k: variant: base_source_hash: 'abc' is not \"sha256:\" and 64 hex digits"},
      {R"({"file": "v.cu", "hash": )" + good + "}", "k: variant: missing \"base_source_hash\""},
      {R"({"file": "v.cu", "hash": )" + good + R"(, "base_source_hash": )" + good +
           R"(, "run": "rm"})",
       "unknown key 'run' (expected base_source_hash, file, hash)"},
      {"42", "k: variant: expected an object, found an integer"},
  };
  for (const auto& [variant, expected] : cases) {
    auto r = parse_lockfile(with_variant(variant), "lock.json");
    ASSERT_FALSE(r.ok()) << variant;
    EXPECT_NE(r.error().to_string().find(expected), std::string::npos) << variant << "\n"
                                                                       << r.error().to_string();
    EXPECT_EQ(r.error().where.file, "lock.json");
    EXPECT_GT(r.error().where.line, 0) << variant;
  }
}

}  // namespace
}  // namespace kev
