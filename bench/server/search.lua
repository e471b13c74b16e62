-- wrk script: POST /v1/search for a random user with a random query.
-- Env: ENGRAM_USERS (default 100), ENGRAM_QUERIES (file, one query per line), ENGRAM_KEY.
local users = tonumber(os.getenv("ENGRAM_USERS") or "100")
local lines = {}
for line in io.lines(os.getenv("ENGRAM_QUERIES")) do lines[#lines + 1] = line end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("ENGRAM_KEY") or ""
if key ~= "" then wrk.headers["Authorization"] = "Bearer " .. key end

request = function()
  local body = string.format('{"user_id":"user%d","query":"%s","k":10}',
                             math.random(0, users - 1), lines[math.random(#lines)])
  return wrk.format(nil, "/v1/search", nil, body)
end

done = dofile(os.getenv("ENGRAM_BENCH_DIR") .. "/report.lua")
