# The io-backend option: INFO's multiplexing_api names the backend in use; --io-backend epoll
# gives epoll; and where the kernel refuses io_uring (here: a seccomp filter that fails
# io_uring_setup with ENOSYS, as Docker's default profile refuses it) keel-server says so in its
# log, runs on epoll and serves clients. These cases start their own servers with explicit
# options, so KEEL_IO_BACKEND does not change them.
import ctypes
import errno
import struct
import sys

import keel_harness as h

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
NR_IO_URING_SETUP = 425  # x86_64
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000


def _bpf(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def refuse_io_uring():
    """Runs in the server's child before exec: a seccomp filter under which io_uring_setup fails
    with ENOSYS and every other system call is allowed."""
    ld_w_abs, jeq_k, ret_k = 0x20, 0x15, 0x06
    program = b"".join([
        _bpf(ld_w_abs, 0, 0, 4),  # seccomp_data.arch
        _bpf(jeq_k, 0, 3, AUDIT_ARCH_X86_64),
        _bpf(ld_w_abs, 0, 0, 0),  # seccomp_data.nr
        _bpf(jeq_k, 0, 1, NR_IO_URING_SETUP),
        _bpf(ret_k, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS),
        _bpf(ret_k, 0, 0, SECCOMP_RET_ALLOW),
    ])
    buffer = ctypes.create_string_buffer(program)
    fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
    fprog_buffer = ctypes.create_string_buffer(fprog)
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_buffer, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def multiplexing_api(server):
    return server.info("server")["multiplexing_api"]


def test_epoll_when_asked():
    with h.start_server(lambda port: ["--port", str(port), "--io-backend", "epoll"]) as server:
        h.check_equal(multiplexing_api(server), "epoll", "multiplexing_api")
        h.check_equal(server.command("CONFIG", "GET", "io-backend"), [b"io-backend", b"epoll"],
                      "CONFIG GET io-backend")
        h.check("io-backend" not in [k.decode() for k in server.command("CONFIG", "GET", "*")],
                "CONFIG GET * lists only Redis's parameters")
        h.check_equal(server.command("CONFIG", "SET", "io-backend", "io_uring"),
                      h.RespError("ERR CONFIG SET failed (possibly related to argument "
                                  "'io-backend') - can't set immutable config"),
                      "CONFIG SET of the startup-only option")


def test_io_uring_by_default_where_the_kernel_allows_it():
    with h.start_server(lambda port: ["--port", str(port)]) as server:
        api = multiplexing_api(server)
        if api != "io_uring":
            h.skip(f"io_uring is not available here: {server.log_tail(5)}")
        h.check_equal(server.command("SET", "k", "v"), "OK", "SET")


def test_falls_back_to_epoll_when_io_uring_is_refused():
    server = h.KeelServer(lambda port: ["--port", str(port), "--io-backend", "io_uring"])
    server.before_exec = refuse_io_uring
    with server:
        server.start()
        h.check_equal(multiplexing_api(server), "epoll", "multiplexing_api under the filter")
        h.check_contains(server.log(), "io-backend io_uring is not available here", "the log")
        h.check_contains(server.log(), "Function not implemented", "the log names the reason")
        h.check_equal(server.command("SET", "k", "v"), "OK", "SET on the fallback")
        h.check_equal(server.command("GET", "k"), b"v", "GET on the fallback")


if __name__ == "__main__":
    sys.exit(h.main({
        "epoll_when_asked": test_epoll_when_asked,
        "io_uring_by_default": test_io_uring_by_default_where_the_kernel_allows_it,
        "falls_back_to_epoll": test_falls_back_to_epoll_when_io_uring_is_refused,
    }))
