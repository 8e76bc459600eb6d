import { radioEndpoint } from "../../families/artist-stats.js";

export default radioEndpoint("radio-airplays", "radioAirplays");
