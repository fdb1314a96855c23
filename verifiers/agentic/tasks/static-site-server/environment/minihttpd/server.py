"""minihttpd: a small static file server configured by an INI file (see README)."""
import configparser
import functools
import http.server
import sys


def main(path):
    config = configparser.ConfigParser(interpolation=None)
    config.optionxform = str  # header names keep their case
    if not config.read(path):
        sys.exit(f"minihttpd: cannot read {path}")
    server = config["server"]
    headers = dict(config["headers"]) if config.has_section("headers") else {}

    class Handler(http.server.SimpleHTTPRequestHandler):
        def end_headers(self):
            for name, value in headers.items():
                self.send_header(name, value)
            super().end_headers()

        def log_message(self, *args):
            pass

    handler = functools.partial(Handler, directory=server["root"])
    address = (server.get("listen", "127.0.0.1"), server.getint("port"))
    http.server.ThreadingHTTPServer(address, handler).serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
