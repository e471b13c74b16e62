-- Shared by the wrk scripts: JSON POSTs with the optional key, the lines of a data file, and
-- the `done` hook that prints one machine-readable line for server_bench.sh.
-- Env: ENGRAM_USERS (default 100), ENGRAM_KEY, ENGRAM_BENCH_DIR (this folder).
local M = {}
M.users = tonumber(os.getenv("ENGRAM_USERS") or "100")

function M.setup_post()
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  local key = os.getenv("ENGRAM_KEY") or ""
  if key ~= "" then wrk.headers["Authorization"] = "Bearer " .. key end
end

function M.lines(env_name)
  local out = {}
  for line in io.lines(os.getenv(env_name)) do out[#out + 1] = line end
  return out
end

function M.random_user()
  return math.random(0, M.users - 1)
end

function M.done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests":%d,"duration_us":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,' ..
    '"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean))
end

return M
