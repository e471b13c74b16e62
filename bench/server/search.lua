-- wrk script: POST /v1/search for a random user with a random query (ENGRAM_QUERIES file).
local common = dofile(os.getenv("ENGRAM_BENCH_DIR") .. "/common.lua")
local queries = common.lines("ENGRAM_QUERIES")
common.setup_post()

request = function()
  local body = string.format('{"user_id":"user%d","query":"%s","k":10}', common.random_user(),
                             queries[math.random(#queries)])
  return wrk.format(nil, "/v1/search", nil, body)
end

done = common.done
