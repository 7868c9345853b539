// A DeviceInfo as JSON: `devices --format json` and the worker protocol write the same fields.
#include "io/device_json.h"

#include <gtest/gtest.h>

namespace kev::io {
namespace {

TEST(DeviceJson, EveryFieldInOrder) {
  DeviceInfo d;
  d.index = 1;
  d.name = "NVIDIA H200";
  d.arch = "sm_90";
  d.sms = 132;
  d.l2_bytes = 62914560;
  d.memory_bytes = 150'000'000'000;
  d.driver_version = "580.159.04";
  d.cuda_version = "13.0";
  d.copy_gbps = 3950.5;
  d.read_gbps = 4300.0;
  d.sm_clock_mhz = 1980;
  d.clock_source = "nvml";
  EXPECT_EQ(device_to_json<nlohmann::ordered_json>(d).dump(),
            R"({"index":1,"name":"NVIDIA H200","arch":"sm_90","sms":132,"l2_bytes":62914560,)"
            R"("memory_bytes":150000000000,"driver_version":"580.159.04","cuda_version":"13.0",)"
            R"("copy_gbps":3950.5,"read_gbps":4300.0,"sm_clock_mhz":1980,"clock_source":"nvml"})");
  const auto sorted = device_to_json<nlohmann::json>(d);
  EXPECT_EQ(sorted.size(), 12u);
  EXPECT_EQ(sorted.at("clock_source"), "nvml");
  EXPECT_EQ(sorted.at("memory_bytes").get<std::int64_t>(), 150'000'000'000);
}

}  // namespace
}  // namespace kev::io
