#!/usr/bin/env python3
"""A stand-in for the GitHub REST API on loopback: accepts POST /repos/OWNER/REPO/pulls,
records each request (path, headers, JSON body) as a line of JSON in LOG, and answers like
GitHub does (201 with html_url), or, while the file ANSWER_FILE exists, with its JSON (a
forged answer). Writes the port it listens on to PORT_FILE."""
import http.server
import json
import os
import sys

log_path, port_file = sys.argv[1], sys.argv[2]
answer_file = sys.argv[3] if len(sys.argv) > 3 else None


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        parts = self.path.strip("/").split("/")
        with open(log_path, "a") as log:
            log.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization", ""),
                                  "body": json.loads(body or b"{}")}) + "\n")
        if len(parts) == 4 and parts[0] == "repos" and parts[3] == "pulls":
            answer = {"number": 7, "html_url": f"https://github.com/{parts[1]}/{parts[2]}/pull/7"}
            if answer_file and os.path.exists(answer_file):
                with open(answer_file) as f:
                    answer = json.load(f)
            code = 201
        else:
            answer, code = {"message": "Not Found"}, 404
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
