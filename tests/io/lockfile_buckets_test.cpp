// Lockfile entries with buckets (schema_version 3): written only when a file holds buckets,
// read back to the same model and bytes, older versions still read, and every new field
// checked as untrusted input with file:line:column and the entry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/lockfile_json.h"

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

Lockfile bucketed() {
  Lockfile lock;
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{2048, std::nullopt}, {{"B", Value(256)}}, 70.1, 90.0}, "kernelevo test");
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{0, 2048}, {{"B", Value(64)}}, 9.5, 12.3}, "kernelevo test");
  return lock;
}

TEST(LockfileBuckets, WrittenAsSchema3AndReadBackByteIdentical) {
  Lockfile lock = bucketed();
  EXPECT_EQ(required_schema_version(lock), 3);
  lock.schema_version = 3;
  const std::string text = format_lockfile(lock);
  EXPECT_EQ(text,
            "{\n"
            "  \"kernels\": {\n"
            "    \"k\": {\n"
            "      \"source\": \"src/k.cu\",\n"
            "      \"source_hash\": \"" +
                kHash +
                "\",\n"
                "      \"targets\": {\n"
                "        \"sm_90\": {\n"
                "          \"NVIDIA H200\": {\n"
                "            \"buckets\": [\n"
                "              {\"baseline_us\": 12.3, \"params\": {\"B\": 64}, \"range\": [0, "
                "2048], \"time_us\": 9.50},\n"
                "              {\"baseline_us\": 90.0, \"params\": {\"B\": 256}, \"range\": "
                "[2048, null], \"time_us\": 70.1}\n"
                "            ],\n"
                "            \"by\": \"cols\",\n"
                "            \"default\": true,\n"
                "            \"tuned_with\": \"kernelevo test\"\n"
                "          }\n"
                "        }\n"
                "      }\n"
                "    }\n"
                "  },\n"
                "  \"schema_version\": 3\n"
                "}\n");
  auto back = parse_lockfile(text, "lock.json");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(format_lockfile(*back), text);
  const LockEntry& e = back->kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  ASSERT_EQ(e.buckets.size(), 2u);
  EXPECT_EQ(e.by, "cols");
  EXPECT_TRUE(e.params.empty());
  EXPECT_EQ(e.params_for(100).at("B"), Value(64));
  EXPECT_EQ(e.params_for(1 << 20).at("B"), Value(256));
  EXPECT_EQ(e.params_for(-5).at("B"), Value(64));  // outside every bucket: the nearest
}

TEST(LockfileBuckets, SetBucketReplacesOverlapsAndKeepsOrder) {
  Lockfile lock = bucketed();
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{1024, 4096}, {{"B", Value(128)}}, 30.0, 40.0}, "again");
  const LockEntry& e = lock.kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  ASSERT_EQ(e.buckets.size(), 1u);  // overlapped both
  EXPECT_EQ(e.buckets[0].range, (BucketRange{1024, 4096}));
  EXPECT_EQ(e.tuned_with, "again");
  EXPECT_TRUE(e.is_default);
  // Another dimension starts over; a plain entry becomes one with buckets.
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "rows",
             {{0, 8}, {{"B", Value(64)}}, 1.0, 2.0}, "rows");
  EXPECT_EQ(lock.kernels.at("k").targets.at("sm_90").at("NVIDIA H200").buckets.size(), 1u);
  LockEntry plain;
  plain.params = {{"B", Value(512)}};
  plain.time_us = 5.0;
  set_entry(lock, "k", "src/k.cu", kHash, "sm_80", "A100", plain);
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{0, std::nullopt}, {{"B", Value(64)}}, 1.0, 2.0}, "t");
  const LockEntry& a = lock.kernels.at("k").targets.at("sm_80").at("A100");
  EXPECT_TRUE(a.params.empty());
  EXPECT_FALSE(a.time_us.has_value());
  EXPECT_EQ(a.buckets.size(), 1u);
  // A bucket timed another way starts the entry over: the others' times would not compare.
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{0, 8}, {{"B", Value(32)}}, 1.0, 2.0}, "t");
  ASSERT_EQ(lock.kernels.at("k").targets.at("sm_80").at("A100").buckets.size(), 1u);  // overlap
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{8, 16}, {{"B", Value(64)}}, 1.0, 2.0}, "t");
  EXPECT_EQ(lock.kernels.at("k").targets.at("sm_80").at("A100").buckets.size(), 2u);
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{16, 32}, {{"B", Value(64)}}, 3.0, 4.0}, "t", "cold-dirty-l2");
  const LockEntry& d = lock.kernels.at("k").targets.at("sm_80").at("A100");
  ASSERT_EQ(d.buckets.size(), 1u);
  EXPECT_EQ(d.buckets[0].range, (BucketRange{16, 32}));
  EXPECT_EQ(d.timing, "cold-dirty-l2");
  // So does a bucket whose code another compiler made.
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{32, 64}, {{"B", Value(64)}}, 3.0, 4.0}, "t", "cold-dirty-l2", "nvrtc");
  const LockEntry& n = lock.kernels.at("k").targets.at("sm_80").at("A100");
  ASSERT_EQ(n.buckets.size(), 1u);
  EXPECT_EQ(n.buckets[0].range, (BucketRange{32, 64}));
  EXPECT_EQ(n.compiler, "nvrtc");
  // And one timed after another revision of the L2 flush; the same revision keeps the others.
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{64, 128}, {{"B", Value(64)}}, 3.0, 4.0}, "t", "cold-dirty-l2", "nvrtc", 3);
  const LockEntry& f = lock.kernels.at("k").targets.at("sm_80").at("A100");
  ASSERT_EQ(f.buckets.size(), 1u);
  EXPECT_EQ(f.buckets[0].range, (BucketRange{64, 128}));
  EXPECT_EQ(f.flush, 3);
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_80", "A100", "cols",
             {{128, 256}, {{"B", Value(64)}}, 3.0, 4.0}, "t", "cold-dirty-l2", "nvrtc", 3);
  EXPECT_EQ(lock.kernels.at("k").targets.at("sm_80").at("A100").buckets.size(), 2u);
}

TEST(LockfileBuckets, OlderFilesAreReadAndWrittenAtTheLowestVersion) {
  const std::string v1 =
      R"({"schema_version": 1, "kernels": {"k": {"source": "src/k.cu", "source_hash": ")" + kHash +
      R"(", "targets": {"sm_90": {"G": {"params": {"B": 64}}}}}}})";
  auto lock = parse_lockfile(v1, "lock.json");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(required_schema_version(*lock), 1);
  const std::string v2 =
      R"({"schema_version": 2, "kernels": {"k": {"source": "src/k.cu", "source_hash": ")" + kHash +
      R"(", "targets": {}, "variant": {"base_source_hash": ")" + kHash +
      R"(", "file": "v/k.cu", "hash": ")" + kHash + R"("}}}})";
  lock = parse_lockfile(v2, "lock.json");
  ASSERT_TRUE(lock.ok()) << lock.error().to_string();
  EXPECT_EQ(required_schema_version(*lock), 2);

  const fs::path dir =
      fs::temp_directory_path() / ("kev_lockbuckets_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "kernelevo.lock.json";
  std::ofstream(file) << v1;
  ASSERT_TRUE(update_lockfile(file, [](Lockfile& l) {
                set_bucket(l, "k", "src/k.cu", kHash, "sm_90", "G", "cols",
                           {{0, std::nullopt}, {{"B", Value(64)}}, 1.0, 2.0}, "t");
                return ok_status();
              }).ok());
  EXPECT_NE(read_text(file).find("\"schema_version\": 3"), std::string::npos);
  ASSERT_TRUE(update_lockfile(file, [](Lockfile& l) {
                LockEntry plain;
                plain.params = {{"B", Value(64)}};
                set_entry(l, "k", "src/k.cu", kHash, "sm_90", "G", plain);
                return ok_status();
              }).ok());
  EXPECT_NE(read_text(file).find("\"schema_version\": 1"), std::string::npos);
  fs::remove_all(dir);
}

// A one-entry lockfile of schema `version` whose entry holds `fields`.
std::string with_fields(const std::string& fields, int version = 3) {
  return "{\"schema_version\": " + std::to_string(version) +
         ", \"kernels\": {\"k\": {\"source\": \"src/k.cu\", \"source_hash\": \"" + kHash +
         "\", \"targets\": {\"sm_90\": {\"G\": {" + fields + "}}}}}}";
}

TEST(LockfileBuckets, UntrustedFieldsAreRefusedNamingFileLineColumnAndEntry) {
  const std::string b0 = R"({"params": {"B": 64}, "range": [0, 2048]})";
  struct Case {
    std::string what;
    std::string text;
    std::string error;  // the whole message after "lock.json:"
  };
  const std::string big(70, 'x');
  std::string many = R"("by": "cols", "buckets": [)";
  for (int i = 0; i < 65; ++i)
    many += (i ? ", " : "") + std::string(R"({"params": {}, "range": [)") + std::to_string(i) +
            ", " + std::to_string(i + 1) + "]}";
  many += "]";
  const std::vector<Case> cases = {
      {"buckets in a v2 file", with_fields(R"("by": "cols", "buckets": [)" + b0 + "]", 2),
       "1:195: error: k sm_90 G: buckets: buckets need schema_version 3 (the file says 2)"},
      {"params and buckets", with_fields(R"("by": "cols", "params": {}, "buckets": [)" + b0 + "]"),
       "1:195: error: k sm_90 G: params: an entry has params or buckets, not both"},
      {"by missing", with_fields(R"("buckets": [)" + b0 + "]"),
       "1:175: error: k sm_90 G: missing \"by\""},
      {"by alone", with_fields(R"("by": "cols", "params": {})"),
       "1:181: error: k sm_90 G: by: \"by\" without \"buckets\""},
      {"by not an identifier", with_fields(R"("by": "co ls", "buckets": [)" + b0 + "]"),
       "1:181: error: k sm_90 G: by: dimension 'co ls' is not an identifier"},
      {"by too long", with_fields(R"("by": ")" + big + R"(", "buckets": [)" + b0 + "]"),
       "1:181: error: k sm_90 G: by: dimension '" + std::string(40, 'x') +
           "...' is not an identifier"},
      {"empty buckets", with_fields(R"("by": "cols", "buckets": [])"),
       "1:195: error: k sm_90 G: buckets: expected a non-empty array of buckets"},
      {"too many", with_fields(many), "1:195: error: k sm_90 G: buckets: 65 buckets; at most 64"},
      {"float bound",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0.5, 2]}])"),
       "1:222: error: k sm_90 G bucket 0: range: expected an integer, found a number"},
      {"huge bound",
       with_fields(
           R"("by": "cols", "buckets": [{"params": {}, "range": [0, 9223372036854775808]}])"),
       "1:222: error: k sm_90 G bucket 0: range: integer out of range"},
      {"range of three",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 1, 2]}])"),
       "1:222: error: k sm_90 G bucket 0: range: expected [low, high] (high an integer, or null "
       "for no upper bound)"},
      {"unknown bucket key",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 1], "x": 1}])"),
       "1:239: error: k sm_90 G bucket 0: unknown key 'x' (expected baseline_us, params, range, "
       "sized, time_us)"},
      {"sized in a v3 file",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 1], "sized": false}])"),
       "1:239: error: k sm_90 G bucket 0: sized: \"sized\" needs schema_version 4 (the file "
       "says 3)"},
      {"sized not a boolean",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 1], "sized": 0}])", 4),
       "1:239: error: k sm_90 G bucket 0: sized: expected true or false, found an integer"},
      {"empty range", with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [5, 5]}])"),
       "1:207: error: k sm_90 G bucket 0: cols bucket 0 [5, 5) is empty: its upper bound must "
       "exceed its lower"},
      {"out of order",
       with_fields(
           R"("by": "cols", "buckets": [{"params": {}, "range": [8, 9]}, {"params": {}, "range": [0, 4]}])"),
       "1:240: error: k sm_90 G bucket 1: cols bucket 1 [0, 4) comes before bucket 0 [8, 9); list "
       "buckets in increasing order without overlap"},
      {"overlap",
       with_fields(
           R"("by": "cols", "buckets": [{"params": {}, "range": [0, 9]}, {"params": {}, "range": [4, null]}])"),
       "1:240: error: k sm_90 G bucket 1: cols bucket 1 [4, inf) overlaps bucket 0 [0, 9); list "
       "buckets in increasing order without overlap"},
      {"unbounded first",
       with_fields(
           R"("by": "cols", "buckets": [{"params": {}, "range": [0, null]}, {"params": {}, "range": [4, 8]}])"),
       "1:243: error: k sm_90 G bucket 1: cols bucket 0 [0, inf) has no upper bound, so bucket 1 "
       "[4, 8) overlaps it; only the last bucket may be unbounded"},
      {"bad bucket value",
       with_fields(R"("by": "cols", "buckets": [{"params": {"B": "1; x"}, "range": [0, 4]}])"),
       "1:219: error: k sm_90 G bucket 0: params.B: string value '1; x' refused: only identifiers "
       "(like float4) are allowed"},
      {"bad bucket time",
       with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 4], "time_us": -1}])"),
       "1:239: error: k sm_90 G bucket 0: time_us: expected a positive number of microseconds"},
      {"bucket not an object", with_fields(R"("by": "cols", "buckets": [7])"),
       "1:207: error: k sm_90 G bucket 0: expected an object, found an integer"},
  };
  for (const Case& c : cases) {
    auto lock = parse_lockfile(c.text, "lock.json");
    ASSERT_FALSE(lock.ok()) << c.what;
    EXPECT_EQ(lock.error().to_string(), "lock.json:" + c.error) << c.what << "\n" << c.text;
    EXPECT_EQ(lock.error().code, ExitCode::usage) << c.what;
  }
}

// A one-size bucket whose winner tune found faster compiled without its size define says so
// ("sized": false, schema_version 4); a bucket compiled with it writes nothing new.
TEST(LockfileBuckets, AnUnsizedBucketIsWrittenAsSchema4AndReadBack) {
  Lockfile lock;
  LockBucket unsized{{1024, 1025}, {{"B", Value(64)}}, 9.5, 12.3};
  unsized.sized = false;
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols", unsized, "t");
  set_bucket(lock, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{2048, 2049}, {{"B", Value(256)}}, 70.1, 90.0}, "t");
  EXPECT_EQ(required_schema_version(lock), 4);
  lock.schema_version = 4;
  const std::string text = format_lockfile(lock);
  EXPECT_NE(text.find("{\"baseline_us\": 12.3, \"params\": {\"B\": 64}, \"range\": [1024, 1025], "
                      "\"sized\": false, \"time_us\": 9.50},\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\"sized\": true"), std::string::npos);
  EXPECT_NE(text.find("\"schema_version\": 4"), std::string::npos);
  auto back = parse_lockfile(text, "lock.json");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, lock);
  const LockEntry& e = back->kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  EXPECT_FALSE(e.bucket_for(1024)->sized);
  EXPECT_TRUE(e.bucket_for(4096)->sized);
  EXPECT_EQ(e.bucket_for(4096)->params.at("B"), Value(256));
  // "sized": true says what absence says.
  auto explicit_true = parse_lockfile(
      with_fields(R"("by": "cols", "buckets": [{"params": {}, "range": [0, 1], "sized": true}])",
                  4),
      "lock.json");
  ASSERT_TRUE(explicit_true.ok()) << explicit_true.error().to_string();
  EXPECT_TRUE(explicit_true->kernels.at("k").targets.at("sm_90").at("G").buckets[0].sized);
  // The same parameters locked the other way are another build: merged as a conflict.
  Lockfile sized;
  set_bucket(sized, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{1024, 1025}, {{"B", Value(64)}}, 9.0, 12.3}, "other");
  const MergeResult r = merge(lock, sized);
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].resolution,
            "kept incoming {B=64} (9.0 us) over {B=64} without its size define (9.5 us): faster "
            "wins");
  EXPECT_TRUE(r.merged.kernels.at("k").targets.at("sm_90").at("NVIDIA H200").buckets[0].sized);
}

TEST(LockfileBuckets, MergeIsPerBucket) {
  Lockfile base = bucketed();
  Lockfile incoming;
  // Same range, faster: taken. A new range that overlaps: dropped.
  set_bucket(incoming, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{0, 2048}, {{"B", Value(128)}}, 8.0, 12.0}, "other");
  const MergeResult r = merge(base, incoming);
  const LockEntry& e = r.merged.kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  ASSERT_EQ(e.buckets.size(), 2u);
  EXPECT_EQ(e.buckets[0].params.at("B"), Value(128));
  EXPECT_EQ(e.buckets[1].params.at("B"), Value(256));  // base's, untouched
  ASSERT_EQ(r.conflicts.size(), 1u);
  EXPECT_EQ(r.conflicts[0].device, "NVIDIA H200 cols [0, 2048)");
  EXPECT_EQ(r.conflicts[0].resolution,
            "kept incoming {B=128} (8.0 us) over {B=64} (9.5 us): faster wins");

  Lockfile overlapping;
  set_bucket(overlapping, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{1000, 3000}, {{"B", Value(128)}}, 1.0, 12.0}, "other");
  const MergeResult o = merge(base, overlapping);
  EXPECT_EQ(o.merged.kernels.at("k").targets.at("sm_90").at("NVIDIA H200").buckets,
            base.kernels.at("k").targets.at("sm_90").at("NVIDIA H200").buckets);
  ASSERT_EQ(o.conflicts.size(), 1u);
  EXPECT_NE(o.conflicts[0].resolution.find("overlaps"), std::string::npos);

  Lockfile plain;
  LockEntry p;
  p.params = {{"B", Value(64)}};
  set_entry(plain, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", p);
  const MergeResult q = merge(base, plain);
  EXPECT_FALSE(q.merged.kernels.at("k").targets.at("sm_90").at("NVIDIA H200").has_buckets());
  ASSERT_EQ(q.conflicts.size(), 1u);
  EXPECT_EQ(q.conflicts[0].resolution,
            "kept incoming (one winner for every problem) over base (buckets of cols): "
            "different layouts, the later file wins");
  // Buckets of another compiler's code do not merge one by one: the later file's entry wins.
  Lockfile nvrtc;
  set_bucket(nvrtc, "k", "src/k.cu", kHash, "sm_90", "NVIDIA H200", "cols",
             {{0, 2048}, {{"B", Value(128)}}, 20.0, 30.0}, "other", "", "nvrtc");
  const MergeResult n = merge(base, nvrtc);
  const LockEntry& ne = n.merged.kernels.at("k").targets.at("sm_90").at("NVIDIA H200");
  ASSERT_EQ(ne.buckets.size(), 1u);
  EXPECT_EQ(ne.compiler, "nvrtc");
  ASSERT_EQ(n.conflicts.size(), 1u);
  EXPECT_EQ(n.conflicts[0].resolution,
            "kept incoming over base: its code was compiled by nvrtc, the other's by nvcc, so the "
            "times do not compare; the later file wins");
}

}  // namespace
}  // namespace kev
