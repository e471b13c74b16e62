-- wrk script: POST /v1/memories (one memory, infer false) for a random user.
-- Env: ENGRAM_USERS (default 100), ENGRAM_TEXTS (file, one text per line), ENGRAM_KEY.
local users = tonumber(os.getenv("ENGRAM_USERS") or "100")
local lines = {}
for line in io.lines(os.getenv("ENGRAM_TEXTS")) do lines[#lines + 1] = line end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("ENGRAM_KEY") or ""
if key ~= "" then wrk.headers["Authorization"] = "Bearer " .. key end

request = function()
  local body = string.format('{"user_id":"user%d","text":"%s","infer":false}',
                             math.random(0, users - 1), lines[math.random(#lines)])
  return wrk.format(nil, "/v1/memories", nil, body)
end

done = dofile(os.getenv("ENGRAM_BENCH_DIR") .. "/report.lua")
