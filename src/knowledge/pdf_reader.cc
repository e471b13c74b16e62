// PDF through poppler's pdftotext, run as a child process with limits: wall time (killed past
// it), CPU time and address space (setrlimit), no files written (RLIMIT_FSIZE 0), and its output
// read only up to the text limit. A parser bug or a hostile file costs at most those limits and
// never the server process.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "knowledge/document_reader.h"
#include "text/utf8.h"

namespace engram {
namespace {

// The program's path: as given when it names a directory, else the first match on PATH.
std::string FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t at = 0;
  while (at <= dirs.size()) {
    size_t colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    const std::string candidate = dirs.substr(at, colon - at) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    at = colon + 1;
  }
  return "";
}

// A temporary file holding the PDF, removed with this object.
class TempPdf {
 public:
  ~TempPdf() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  Status Write(std::string_view data) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "engram-pdf-XXXXXX").string();
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) return Status::IOError("cannot create a temporary file for the PDF");
    path_ = tmpl;
    size_t done = 0;
    while (done < data.size()) {
      const ssize_t n = write(fd, data.data() + done, data.size() - done);
      if (n <= 0) {
        close(fd);
        return Status::IOError("cannot write the PDF to a temporary file");
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
    return Status::Ok();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct ChildRun {
  std::string out;
  bool timed_out = false;
  bool too_large = false;
  int wait_status = 0;
};

// Only async-signal-safe calls between fork and exec (the server has many threads).
[[noreturn]] void ExecChild(const std::string& program, const std::string& input, int out_fd,
                            int null_fd, const ReadLimits& limits) {
  dup2(null_fd, STDIN_FILENO);
  dup2(out_fd, STDOUT_FILENO);
  dup2(null_fd, STDERR_FILENO);
  syscall(SYS_close_range, 3U, ~0U, 0U);
  const rlimit cpu{static_cast<rlim_t>(limits.pdf_cpu_seconds),
                   static_cast<rlim_t>(limits.pdf_cpu_seconds) + 1};
  setrlimit(RLIMIT_CPU, &cpu);
  const rlimit mem{limits.pdf_memory_bytes, limits.pdf_memory_bytes};
  setrlimit(RLIMIT_AS, &mem);
  const rlimit none{0, 0};
  setrlimit(RLIMIT_FSIZE, &none);
  setrlimit(RLIMIT_CORE, &none);
  const char* argv[] = {program.c_str(), "-q", "-enc", "UTF-8", input.c_str(), "-", nullptr};
  execv(program.c_str(), const_cast<char* const*>(argv));
  _exit(127);
}

Result<ChildRun> RunPdfToText(const std::string& program, const std::string& input,
                              const ReadLimits& limits) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return Status::IOError("pipe for pdftotext failed");
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  const pid_t pid = null_fd < 0 ? -1 : fork();
  if (pid == 0) ExecChild(program, input, pipe_fds[1], null_fd, limits);
  close(pipe_fds[1]);
  if (null_fd >= 0) close(null_fd);
  if (pid < 0) {
    close(pipe_fds[0]);
    return Status::IOError("cannot start pdftotext");
  }
  ChildRun run;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.pdf_timeout_ms);
  char buf[65536];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      run.timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline is checked above
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    run.out.append(buf, static_cast<size_t>(n));
    if (run.out.size() > limits.max_text_bytes) {
      run.too_large = true;
      break;
    }
  }
  close(pipe_fds[0]);
  // A child that closed its output may still be running: it gets until the deadline to exit.
  while (!run.timed_out && !run.too_large) {
    const pid_t done = waitpid(pid, &run.wait_status, WNOHANG);
    if (done == pid) return run;
    if (done < 0 && errno != EINTR) return run;
    if (std::chrono::steady_clock::now() >= deadline) {
      run.timed_out = true;
      break;
    }
    usleep(2000);
  }
  kill(pid, SIGKILL);
  while (waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
  }
  return run;
}

}  // namespace

ReadDocument BlocksOfPdfText(std::string text) {
  ReadDocument doc;
  doc.text = std::move(text);
  const std::string_view t = doc.text;
  int page = 1;
  doc.blocks.push_back(DocumentBlock{BlockKind::kHeading, 1, 0, 0, "page 1"});
  size_t para_begin = std::string::npos, para_end = 0;
  auto close_paragraph = [&] {
    if (para_begin != std::string::npos) {
      doc.blocks.push_back(DocumentBlock{BlockKind::kParagraph, 0, para_begin, para_end, ""});
    }
    para_begin = std::string::npos;
  };
  size_t at = 0;
  while (at < t.size()) {
    size_t nl = t.find_first_of("\n\f", at);
    if (nl == std::string_view::npos) nl = t.size();
    const std::string_view line = t.substr(at, nl - at);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      close_paragraph();
    } else {
      if (para_begin == std::string::npos) para_begin = at;
      para_end = nl;
    }
    if (nl < t.size() && t[nl] == '\f') {
      close_paragraph();
      if (t.find_first_not_of(" \t\r\n\f", nl + 1) != std::string_view::npos) {
        ++page;
        doc.blocks.push_back(
            DocumentBlock{BlockKind::kHeading, 1, nl + 1, nl + 1, "page " + std::to_string(page)});
      }
    }
    at = nl + 1;
  }
  close_paragraph();
  return doc;
}

Result<ReadDocument> ReadPdf(std::string_view pdf, const ReadLimits& limits,
                             DocumentProblem* problem) {
  *problem = DocumentProblem::kNone;
  auto refuse = [&](DocumentProblem p, std::string message) -> Status {
    *problem = p;
    return Status::InvalidArgument(std::move(message));
  };
  // The header may follow a little junk (PDF readers look in the first kilobyte).
  if (pdf.substr(0, 1024).find("%PDF-") == std::string_view::npos) {
    return refuse(DocumentProblem::kUnsupportedFormat,
                  "the document is not a PDF (no %PDF- header)");
  }
  const std::string program = FindProgram(limits.pdftotext);
  if (program.empty()) {
    return Status::Unavailable("pdftotext is not installed (Debian package poppler-utils)");
  }
  TempPdf file;
  if (Status st = file.Write(pdf); !st.ok()) return st;
  auto run = RunPdfToText(program, file.path(), limits);
  if (!run.ok()) return run.status();
  if (run->timed_out) {
    return refuse(
        DocumentProblem::kParserTimeout,
        "the PDF parser ran past its limit of " + std::to_string(limits.pdf_timeout_ms) + " ms");
  }
  if (run->too_large) {
    return refuse(DocumentProblem::kTooLarge,
                  "the PDF's text is over " + std::to_string(limits.max_text_bytes) + " bytes");
  }
  const int ws = run->wait_status;
  if (WIFSIGNALED(ws) && (WTERMSIG(ws) == SIGXCPU || WTERMSIG(ws) == SIGKILL)) {
    return refuse(DocumentProblem::kParserTimeout, "the PDF parser ran past its CPU time limit");
  }
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127) {
      return Status::Unavailable("pdftotext could not be run: " + program);
    }
    return refuse(DocumentProblem::kUnreadable,
                  "the PDF could not be read (damaged or encrypted): pdftotext " +
                      (WIFEXITED(ws) ? "exited with " + std::to_string(WEXITSTATUS(ws))
                                     : "was killed by signal " + std::to_string(WTERMSIG(ws))));
  }
  if (!IsValidUtf8(run->out)) {
    return refuse(DocumentProblem::kUnreadable, "the PDF's text is not valid UTF-8");
  }
  return BlocksOfPdfText(std::move(run->out));
}

}  // namespace engram
