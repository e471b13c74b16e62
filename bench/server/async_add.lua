-- wrk script: POST /v1/memories with infer and async (202 + job id), for a random user
-- (ENGRAM_TEXTS). Measures what a caller waits for when extraction runs in the background.
local common = dofile(os.getenv("ENGRAM_BENCH_DIR") .. "/common.lua")
local texts = common.lines("ENGRAM_TEXTS")
common.setup_post()

request = function()
  local body = string.format('{"user_id":"user%d","text":"%s","async":true}',
                             common.random_user(), texts[math.random(#texts)])
  return wrk.format(nil, "/v1/memories", nil, body)
end

done = common.done
