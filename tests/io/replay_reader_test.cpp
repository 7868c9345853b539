#include "io/replay_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/recorded_space.h"
#include "support/cpu_time.h"
#include "support/temp_dir.h"

namespace kev {
namespace {

const std::string kSpaces = std::string(KERNELEVO_FIXTURES) + "/spaces/";

TEST(ReplayReaderTest, ReadsKernelTunerCachefiles) {
  auto rec = io::read_recording(kSpaces + "synthetic_kt.json");
  ASSERT_TRUE(rec.ok()) << rec.error().to_string();
  EXPECT_EQ(rec->format, "kernel_tuner");
  EXPECT_EQ(rec->kernel, "synthetic");
  EXPECT_EQ(rec->device, "Synthetic GPU");
  ASSERT_EQ(rec->dims.size(), 4u);
  EXPECT_EQ(rec->dims[0].name, "block");  // tune_params_keys order
  EXPECT_EQ(rec->dims[1].values.size(), 5u);
  EXPECT_EQ(rec->points().size(), 144u);
  EXPECT_EQ(rec->count(Disposition::launch_failed), 6u);
  EXPECT_EQ(rec->count(Disposition::compile_failed), 8u);
  const RecordedSpace space(*rec);
  // block=128, tile=4, unroll=0, vec=2 is the synthetic optimum, about 1 ms.
  const auto p = space.from_params({{"block", 128}, {"tile", 4}, {"unroll", 0}, {"vec", 2}});
  ASSERT_TRUE(p);
  const Outcome* o = rec->find(*p);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->passed());
  EXPECT_NEAR(*o->time_us, 1000.0, 25.0);  // ms converted to us
  EXPECT_EQ(o->samples_us.size(), 5u);
  EXPECT_DOUBLE_EQ(*rec->optimum_us(), *o->time_us);
}

TEST(ReplayReaderTest, GzipAndPlainGiveTheSameRecording) {
  auto plain = io::read_recording(kSpaces + "synthetic_kt.json");
  auto gz = io::read_recording(kSpaces + "synthetic_kt.json.gz");
  ASSERT_TRUE(plain.ok() && gz.ok());
  ASSERT_EQ(plain->points().size(), gz->points().size());
  for (const auto& rp : plain->points()) {
    const Outcome* other = gz->find(rp.point);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(other->disposition, rp.outcome.disposition);
    EXPECT_EQ(other->time_us, rp.outcome.time_us);
  }
}

TEST(ReplayReaderTest, T4ResultsMatchTheCachefile) {
  auto kt = io::read_recording(kSpaces + "synthetic_kt.json");
  auto t4 = io::read_recording(kSpaces + "synthetic_t4.json");
  ASSERT_TRUE(t4.ok()) << t4.error().to_string();
  EXPECT_EQ(t4->format, "t4");
  ASSERT_EQ(t4->points().size(), kt->points().size());
  const RecordedSpace kt_space(*kt), t4_space(*t4);
  for (const auto& rp : kt->points()) {
    const auto p = t4_space.from_params(kt_space.to_params(rp.point));
    ASSERT_TRUE(p);
    const Outcome* o = t4->find(*p);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->disposition, rp.outcome.disposition) << kt_space.key(rp.point);
    if (rp.outcome.passed()) {
      EXPECT_DOUBLE_EQ(*o->time_us, *rp.outcome.time_us);
      EXPECT_EQ(o->samples_us, rp.outcome.samples_us);
    }
  }
}

TEST(ReplayReaderTest, ErrorsNameTheFileAndPosition) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const std::string broken = (dir / "broken.json").string();
  std::ofstream(broken) << "{\n  \"cache\": {\n    \"1\": oops\n}";
  auto rec = io::read_recording(broken);
  ASSERT_FALSE(rec.ok());
  EXPECT_EQ(rec.error().where.file, broken);
  EXPECT_EQ(rec.error().where.line, 3);
  const std::string unknown = (dir / "unknown.json").string();
  std::ofstream(unknown) << "{\"hello\": 1}";
  rec = io::read_recording(unknown);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("unknown recording format"), std::string::npos);
  const std::string missing = (dir / "missing.json").string();
  rec = io::read_recording(missing);
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("cannot read " + missing), std::string::npos);
}

// Times that are negative or not finite would pass any gate; every reader refuses them.
TEST(ReplayReaderTest, NegativeOrNonFiniteTimesAreErrors) {
  const kev::test_support::TempDir tmp;
  const std::filesystem::path dir = tmp.path();
  const std::string kt_head =
      R"({"tune_params_keys": ["b"], "tune_params": {"b": [1, 2]}, "cache": {)"
      R"("1": {"b": 1, "time": 2.0, "times": [2.0, 2.1]}, "2": {"b": 2, )";
  const std::string t4_head =
      R"({"results": [{"configuration": {"b": 1}, "measurements": [{"name": "time", "value": 2}]},)"
      R"( {"configuration": {"b": 2}, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kt_head + R"("time": -5}}})", "cache entry '2': time is -5; times must be finite"},
      // Finite in milliseconds, infinite in microseconds.
      {kt_head + R"("time": 1e306}}})", "cache entry '2': time is 1e+306"},
      {kt_head + R"("time": 2.0, "times": [2.0, -0.5]}}})", "cache entry '2': a value of times"},
      {t4_head + R"("measurements": [{"name": "time", "value": -1}]}]})",
       "result 2: the time measurement is -1; times must be finite and not negative"},
      {t4_head + R"("times": {"runtimes": [-2, 2]}}]})", "result 2: a runtime is -2"},
      // JSON has no infinity; a number too large for a double is refused, not a crash.
      {kt_head + R"("time": 1e999}}})", "number overflow"}};
  for (const auto& [text, message] : cases) {
    const std::string file = (dir / "r.json").string();
    std::ofstream(file) << text;
    const auto rec = io::read_recording(file);
    ASSERT_FALSE(rec.ok()) << text;
    EXPECT_EQ(rec.error().where.file, file);
    EXPECT_NE(rec.error().message.find(message), std::string::npos) << rec.error().message;
    EXPECT_EQ(rec.error().code, ExitCode::usage);
  }
}

TEST(SharedSpacesTest, ConvolutionA100LoadsFastAndMatchesItsT4Twin) {
  const std::string dir = KERNELEVO_SHARED_SPACES;
  if (!std::filesystem::exists(dir + "/convolution_A100.json.gz")) GTEST_SKIP() << dir << " absent";
  const test_support::ThreadCpuTimer timer;
  auto kt = io::read_recording(dir + "/convolution_A100.json.gz");
  const double seconds = timer.seconds();
  ASSERT_TRUE(kt.ok()) << kt.error().to_string();
  EXPECT_EQ(kt->points().size(), 4362u);
  EXPECT_NEAR(*kt->optimum_us(), 553.6, 0.1);  // the README's 0.5536 ms
  EXPECT_LT(seconds, 10.0);                    // generous: Debug builds and a loaded machine
  auto t4 = io::read_recording(dir + "/convolution_A100_T4.json.gz");
  ASSERT_TRUE(t4.ok()) << t4.error().to_string();
  EXPECT_EQ(t4->points().size(), 4362u);
  EXPECT_DOUBLE_EQ(*t4->optimum_us(), *kt->optimum_us());
  EXPECT_EQ(t4->count(Disposition::launch_failed), kt->count(Disposition::launch_failed));
  EXPECT_EQ(t4->count(Disposition::compile_failed), kt->count(Disposition::compile_failed));
}

}  // namespace
}  // namespace kev
