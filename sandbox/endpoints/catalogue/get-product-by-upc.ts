import { lookupPage } from "../../families/catalogue.js";
import { sandboxRoute } from "../../http/endpoint-route.js";

export default sandboxRoute({
  method: "GET",
  path: "/api/v1/getproductByupc/:upc",
  operation: "catalogue.getProductByUpc",
  handle: ({ params, query, data }) => {
    const upc = params.upc ?? "";
    const products = data.products().filter((product) => product.upc.includes(upc));
    return lookupPage(query, "product", products, { search: upc });
  },
});
