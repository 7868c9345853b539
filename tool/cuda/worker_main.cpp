#include "cuda/worker_main.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "cuda/driver_runner.h"
#include "cuda/worker_protocol.h"

namespace kev::cuda {

int serve_worker(int device_index) {
  std::ios::sync_with_stdio(false);
  auto opened = DriverRunner::open(device_index);
  std::string line;
  while (std::getline(std::cin, line)) {
    WorkerResponse response;
    auto request = decode_request(line);
    if (!request) {
      response.ok = false;
      response.error = request.error();
    } else if (request->op == WorkerRequest::Op::quit) {
      return 0;
    } else if (!opened) {
      response.ok = false;
      response.error = opened.error();
    } else {
      DriverRunner& runner = **opened;
      if (request->op == WorkerRequest::Op::run) {
        runner.set_ceilings(request->copy_gbps, request->read_gbps);
        response.report = runner.run(request->run);
      }
      // The device (with its ceilings) goes back with every answer; measured once.
      if (!response.report.context_lost) {
        auto info = runner.device_info();
        if (info) {
          response.device = *info;
        } else if (request->op == WorkerRequest::Op::device) {
          response.ok = false;
          response.error = info.error();
        }
      }
    }
    std::cout << encode_response(response) << '\n' << std::flush;
    // The context is gone (a fault, or a kernel still running): exit without the
    // destructors, which would wait on the device, so the parent starts afresh.
    if (response.report.context_lost) std::_Exit(0);
  }
  return 0;
}

}  // namespace kev::cuda
