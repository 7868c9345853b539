#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server for tests.

Real HTTP on 127.0.0.1 with an ephemeral port. Each POST to .../chat/completions takes
the next step of a JSON script (a list of steps) and answers accordingly:

  {"content": "text", "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
  {"status": 429, "headers": {"Retry-After": "1"}, "body": {...}}   any status, any body
  {"raw": "not json at all"}                                        a 200 with this body
  {"json": {...}}                                                   a 200 with this JSON
  {"delay": 30, "content": "..."}                                   answers after a delay
  {"close": true}                                                   drops the connection

After the last step it answers 500 "script exhausted". Every request body is written to
the record directory as request-NNN.json (and its headers, minus Authorization's value,
as request-NNN.headers) so tests can check what reached the model. The listening port is
printed on the first line of stdout as "PORT <n>".

Usage: scripted_server.py SCRIPT.json RECORD_DIR
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, steps, record_dir):
        self.steps = steps
        self.record_dir = record_dir
        self.next = 0
        self.lock = threading.Lock()

    def take(self, body, headers, path):
        with self.lock:
            index = self.next
            self.next += 1
        spy_environ()
        with open(os.path.join(self.record_dir, "request-%03d.json" % index), "wb") as f:
            f.write(body)
        with open(os.path.join(self.record_dir, "request-%03d.headers" % index), "w") as f:
            f.write("path: %s\n" % path)
            for name, value in headers.items():
                if name.lower() == "authorization":
                    value = "present" if value else "empty"
                f.write("%s: %s\n" % (name, value))
        return self.steps[index] if index < len(self.steps) else None


def spy_environ():
    """With KERNELEVO_SPY_CMDLINE and KERNELEVO_SPY_OUT set: appends what /proc/<pid>/environ
    shows of every process whose command line holds that text, as another process of the
    same user could read it while the client waits for this answer."""
    needle = os.environ.get("KERNELEVO_SPY_CMDLINE")
    out = os.environ.get("KERNELEVO_SPY_OUT")
    if not needle or not out:
        return
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ")
            if needle.encode() not in cmdline:
                continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                environ = f.read().replace(b"\0", b"\n")
        except OSError:
            continue
        with open(out, "ab") as f:
            f.write(b"== " + cmdline + b"\n" + environ + b"\n")


def completion(content, usage):
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": usage,
    }


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet
            pass

        def send(self, status, payload, headers=None):
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if not self.path.split("?", 1)[0].endswith("/chat/completions"):
                self.send(404, {"error": {"message": "no such path: " + self.path}})
                return
            step = state.take(body, self.headers, self.path)
            if step is None:
                self.send(500, {"error": {"message": "script exhausted"}})
                return
            if step.get("delay"):
                time.sleep(step["delay"])
            if step.get("close"):
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if "raw" in step:
                self.send(step.get("status", 200), step["raw"].encode(), step.get("headers"))
                return
            if "json" in step:
                self.send(step.get("status", 200), step["json"], step.get("headers"))
                return
            status = step.get("status", 200)
            if status != 200:
                self.send(status, step.get("body", {"error": {"message": "scripted %d" % status}}),
                          step.get("headers"))
                return
            usage = step.get("usage", {"prompt_tokens": 0, "completion_tokens": 0})
            self.send(200, completion(step.get("content", ""), usage), step.get("headers"))

    return Handler


def main():
    script_path, record_dir = sys.argv[1], sys.argv[2]
    with open(script_path) as f:
        steps = json.load(f)
    os.makedirs(record_dir, exist_ok=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(State(steps, record_dir)))
    server.daemon_threads = True
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
