#!/usr/bin/env python3
"""A stand-in for GitHub on loopback, for the action's tests.

REST: GET /repos/O/R (the token check), GET /repos/O/R/pulls (open pull requests, filtered by
base), POST /repos/O/R/pulls (opens one: 201 with number and html_url, 422 when the head
already has an open one), PATCH /repos/O/R/pulls/N (title, body, state), DELETE /repos/O/R/git/refs/heads/BRANCH (204,
the branch removed from GIT_ROOT/O/R.git; 422 when there is no such branch). Every request must
carry "Authorization: Bearer TOKEN" with the token in TOKEN_FILE, else 401 as GitHub answers
a bad token. While ANSWER_FILE exists, a POST is answered with its JSON (a forged answer).

Git over HTTP: /git/REPO.git/... runs `git http-backend` on GIT_ROOT/REPO.git (pushes need
the same token, as basic auth x-access-token:TOKEN, as GitHub takes it).

Each request is logged as a line of JSON in LOG: method, path, every Authorization header,
the JSON body. Writes the port it listens on to PORT_FILE.

usage: fake_github_api.py LOG PORT_FILE TOKEN_FILE GIT_ROOT [ANSWER_FILE]"""
import base64
import http.server
import json
import os
import subprocess
import sys
import urllib.parse

log_path, port_file, token_file, git_root = sys.argv[1:5]
answer_file = sys.argv[5] if len(sys.argv) > 5 else None
pulls = []  # {"number", "state", "head", "base", "title", "body"}


def token():
    with open(token_file) as f:
        return f.read().strip()


class Handler(http.server.BaseHTTPRequestHandler):
    def _body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def _log(self, body):
        try:
            parsed = json.loads(body or b"{}")
        except ValueError:
            parsed = None
        with open(log_path, "a") as log:
            log.write(json.dumps({"method": self.command, "path": self.path,
                                  "authorization": self.headers.get_all("Authorization") or [],
                                  "body": parsed}) + "\n")

    def _answer(self, code, answer):
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _pull_json(self, repo, pull):
        return {"number": pull["number"], "state": pull["state"], "title": pull["title"],
                "body": pull["body"], "html_url": f"https://github.com/{repo}/pull/{pull['number']}",
                "head": {"ref": pull["head"], "repo": {"full_name": repo}},
                "base": {"ref": pull["base"]}}

    def _rest(self, body):
        self._log(body)
        if self.headers.get_all("Authorization") != [f"Bearer {token()}"]:
            return self._answer(401, {"message": "Bad credentials"})
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        parts = url.path.strip("/").split("/")
        if len(parts) < 3 or parts[0] != "repos":
            return self._answer(404, {"message": "Not Found"})
        repo = f"{parts[1]}/{parts[2]}"
        data = json.loads(body or b"{}")
        if len(parts) == 3 and self.command == "GET":
            return self._answer(200, {"full_name": repo, "permissions": {"push": True, "pull": True}})
        if len(parts) == 4 and parts[3] == "pulls" and self.command == "GET":
            found = [self._pull_json(repo, p) for p in pulls
                     if p["state"] == query.get("state", "open") and
                     ("base" not in query or p["base"] == query["base"])]
            return self._answer(200, found)
        if len(parts) == 4 and parts[3] == "pulls" and self.command == "POST":
            if answer_file and os.path.exists(answer_file):
                with open(answer_file) as f:
                    return self._answer(201, json.load(f))
            if any(p["state"] == "open" and p["head"] == data["head"] for p in pulls):
                return self._answer(422, {"message": "A pull request already exists"})
            pull = {"number": 7 + len(pulls), "state": "open", "head": data["head"],
                    "base": data["base"], "title": data["title"], "body": data["body"]}
            pulls.append(pull)
            return self._answer(201, self._pull_json(repo, pull))
        if len(parts) == 5 and parts[3] == "pulls" and self.command == "PATCH":
            for pull in pulls:
                if str(pull["number"]) == parts[4]:
                    pull.update({k: data[k] for k in ("title", "body", "state") if k in data})
                    return self._answer(200, self._pull_json(repo, pull))
        if parts[3:6] == ["git", "refs", "heads"] and len(parts) > 6 and self.command == "DELETE":
            ref = "refs/heads/" + "/".join(parts[6:])
            git_dir = os.path.join(git_root, repo + ".git")
            if subprocess.run(["git", "--git-dir", git_dir, "show-ref", "--verify", "--quiet", ref]).returncode:
                return self._answer(422, {"message": "Reference does not exist"})
            subprocess.run(["git", "--git-dir", git_dir, "update-ref", "-d", ref], check=True)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        return self._answer(404, {"message": "Not Found"})

    def _git(self, body):
        self._log(b"")
        expected = "Basic " + base64.b64encode(f"x-access-token:{token()}".encode()).decode()
        url = urllib.parse.urlsplit(self.path)
        pushing = "git-receive-pack" in url.path or "service=git-receive-pack" in url.query
        if pushing and [h.lower() for h in self.headers.get_all("Authorization") or []] != [expected.lower()]:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="fake"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        env = dict(os.environ, GIT_PROJECT_ROOT=git_root, GIT_HTTP_EXPORT_ALL="1", REMOTE_USER="x",
                   REQUEST_METHOD=self.command, PATH_INFO=url.path[len("/git"):],
                   QUERY_STRING=url.query, CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(body)),
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, rest = out.partition(b"\r\n\r\n")
        status, headers = 200, []
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(": ")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(rest)))
        self.end_headers()
        self.wfile.write(rest)

    def _dispatch(self):
        body = self._body()
        if self.path.startswith("/git/"):
            return self._git(body)
        return self._rest(body)

    do_GET = do_POST = do_PATCH = do_DELETE = _dispatch

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
